import Foundation
import Testing

@testable import SecretKeychain

/// The portal keyring file as the store makes it and checks it before libsecret reads it (libsecret reading it, in a
/// real sandbox with the real portal, is in the integration tests).
@Suite struct PortalKeyringFileTests {
    static let salt = (0..<32).map { UInt8($0) }
    static let file = PortalKeyringFile.emptyKeyring(salt: salt, modified: Date(timeIntervalSince1970: 1_700_000_000))

    @Test func anEmptyKeyringIsLibsecretsFormatWithFewIterations() throws {
        #expect(PortalKeyringFile.damage(in: Self.file) == nil)
        // libsecret's magic and version 1.0, then the salt's size (little-endian) and the salt itself.
        #expect(Self.file.prefix(18) == Data("GnomeKeyring\n\r\0\n".utf8 + [1, 0]))
        #expect(Self.file.dropFirst(18).prefix(4) == Data([32, 0, 0, 0]))
        #expect(Self.file.dropFirst(22).prefix(32) == Data(Self.salt))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.file.write(to: URL(fileURLWithPath: path))
        #expect(PortalKeyringFile.recordedIterationCount(atPath: path) == PortalKeyringFile.iterationCount)
    }

    @Test func aFileLibsecretWouldAbortOnOrCannotReadIsDamaged() {
        var wrongSaltSize = Self.file
        wrongSaltSize[18] = 31
        #expect(PortalKeyringFile.damage(in: wrongSaltSize) == "it records a salt of 31 bytes but holds 32")
        var otherVersion = Self.file
        otherVersion[16] = 0
        #expect(PortalKeyringFile.damage(in: otherVersion) == "its format version is not 1.0, the one libsecret reads")
        #expect(PortalKeyringFile.damage(in: Data("not a keyring".utf8)) == "it does not begin as a libsecret keyring file")
        #expect(PortalKeyringFile.damage(in: Self.file.dropLast(3)) == "it is cut short or damaged")
        let error = KeychainError.corruptKeyringFile(path: "/k/default.keyring", reason: "it records a salt of 31 bytes but holds 32")
        #expect(error.description.contains("/k/default.keyring cannot be opened") && error.description.contains("move it aside"))
    }
}
