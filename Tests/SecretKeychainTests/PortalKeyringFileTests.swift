import Foundation
import Logging
import SystemSupport
import Testing

@testable import SecretKeychain

#if canImport(Glibc)
import Glibc
#endif

/// The portal keyring file as the store makes it and checks it before libsecret reads it (libsecret reading it, in a
/// real sandbox with the real portal, is in the integration tests).
@Suite struct PortalKeyringFileTests {
    static let salt = (0..<32).map { UInt8($0) }
    static let file = PortalKeyringFile.emptyKeyring(salt: salt, modified: Date(timeIntervalSince1970: 1_700_000_000))
    static let logger = Logger(label: "PortalKeyringFileTests")

    let folder: URL
    var path: String { folder.appendingPathComponent("keyrings/default.keyring").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-keyring-\(UUID().uuidString)")
    }

    /// Everything in the keyring's folder, by name (no new file left beside it).
    func folderContents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("keyrings").path)) ?? []).sorted()
    }

    func write(_ contents: Data) throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("keyrings"), withIntermediateDirectories: true)
        try contents.write(to: URL(fileURLWithPath: path))
    }

    @Test func anEmptyKeyringIsLibsecretsFormatWithFewIterations() throws {
        #expect(PortalKeyringFile.damage(in: Self.file) == nil)
        // libsecret's magic and version 1.0, then the salt's size (little-endian) and the salt itself.
        #expect(Self.file.prefix(18) == Data("GnomeKeyring\n\r\0\n".utf8 + [1, 0]))
        #expect(Self.file.dropFirst(18).prefix(4) == Data([32, 0, 0, 0]))
        #expect(Self.file.dropFirst(22).prefix(32) == Data(Self.salt))
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.file)
        #expect(PortalKeyringFile.recordedIterationCount(atPath: path) == PortalKeyringFile.iterationCount)
    }

    /// libsecret 0.20.5 `g_assert`s that the salt it reads is as long as the file records: a wrong recorded size, and a
    /// file cut short anywhere after its salt's size (its salt then reads at another length), are refused.
    @Test func eachDamageLibsecretAbortsOnIsRefusedAndLeftAsItIs() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var wrongSaltSize = Self.file
        wrongSaltSize[18] = 31
        #expect(PortalKeyringFile.damage(in: wrongSaltSize) == "it records a salt of 31 bytes but holds 32")
        // Cut within the salt, within the iterations, within the dates and at the end.
        for kept in [Self.file.count - 3, Self.file.count - 1, 18 + 4 + 32 + 2, 18 + 4 + 10] {
            let cut = Self.file.prefix(kept)
            let reason = try #require(PortalKeyringFile.damage(in: cut), "cut to \(kept) bytes")
            #expect(reason.hasPrefix("it is cut short or damaged (it records a salt of 32 bytes"), "\(reason)")
        }
        for damaged in [wrongSaltSize, Self.file.dropLast(3)] {
            try write(damaged)
            var asked = false
            let error = #expect(throws: KeychainError.self) {
                _ = try PortalKeyringFile.prepare(at: path, logger: Self.logger) {
                    asked = true
                    return 64
                }
            }
            #expect(error == .corruptKeyringFile(path: path, reason: PortalKeyringFile.damage(in: damaged)!))
            #expect(!asked, "the portal is not asked for an existing file")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "left as it is")
        }
        let error = KeychainError.corruptKeyringFile(path: "/k/default.keyring", reason: "it records a salt of 31 bytes but holds 32")
        #expect(error.description.contains("/k/default.keyring cannot be opened") && error.description.contains("move it aside"))
    }

    /// A file of another format version, or no keyring file at all, is libsecret's to read or to report: not refused,
    /// not replaced.
    @Test func anotherFormatVersionIsLeftToLibsecret() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var newer = Self.file
        newer[16] = 2
        var olderWithAnotherLayout = Data("GnomeKeyring\n\r\0\n".utf8 + [0, 9])
        olderWithAnotherLayout.append(contentsOf: [1, 2, 3])
        for other in [newer, olderWithAnotherLayout, Data("not a keyring".utf8)] {
            #expect(PortalKeyringFile.damage(in: other) == nil)
            try write(other)
            #expect(try PortalKeyringFile.prepare(at: path, logger: Self.logger) { 64 } == .found)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == other, "left as it is")
            #expect(PortalKeyringFile.recordedIterationCount(atPath: path) == nil)
        }
    }

    /// A missing file is made, whole, with 1,000 iterations, mode 0600, nothing left beside it; only for the portal's
    /// 64-byte secret.
    @Test func aMissingFileIsMadeWholeForA64ByteSecret() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try PortalKeyringFile.prepare(at: path, logger: Self.logger) { PortalSecret.expectedLength } == .made)
        #expect(folderContents() == ["default.keyring"])
        let made = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(made.count == Self.file.count && PortalKeyringFile.damage(in: made) == nil)
        #expect(PortalKeyringFile.recordedIterationCount(atPath: path) == PortalKeyringFile.iterationCount)
        #expect(made.dropFirst(22).prefix(32) != Data(Self.salt) && made.dropFirst(22).prefix(32) != Data(count: 32), "a fresh salt")
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        // Made once: the next launch finds it, and the portal is not asked.
        #expect(try PortalKeyringFile.prepare(at: path, logger: Self.logger) { Issue.record("asked"); return 64 } == .found)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == made)
    }

    /// A secret of another length than the portal's 64 random bytes, or one that could not be measured, is not what
    /// few iterations rely on: no file is made, and libsecret makes it with its own 100,000.
    @Test func aSecretOfAnotherLengthLeavesTheFileToLibsecret() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for length in ([0, 16, 32, 63, 65, 128, PortalSecret.readLimit] as [Int?]) + [nil] {
            let preparation = try PortalKeyringFile.prepare(at: path, logger: Self.logger) { length }
            guard case .leftToLibsecret(let reason) = preparation else {
                Issue.record("\(String(describing: length)): \(preparation)")
                continue
            }
            #expect(reason.contains(length.map { "\($0) bytes" } ?? "could not be measured"), "\(reason)")
            #expect(!FileManager.default.fileExists(atPath: path) && folderContents().isEmpty)
        }
    }
}
