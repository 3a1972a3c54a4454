import Foundation
import Testing

@testable import KeyringAuthEmulator

/// The emulator's TOTP against the RFCs' test vectors.
@Suite struct TOTPTests {
    @Test func sha1AndHMACMatchTheRFCVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(TOTP.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(TOTP.sha1([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(TOTP.sha1(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        // RFC 2202 test cases 1 and 6 (a key longer than a block).
        #expect(hex(TOTP.hmacSHA1(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b617318655057264e28bc0b6fb378c8ef146be00")
        #expect(hex(TOTP.hmacSHA1(key: [UInt8](repeating: 0xaa, count: 80),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))) == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test func codesMatchRFC6238() {
        let secret = Array("12345678901234567890".utf8)
        for (time, code) in [(59.0, "94287082"), (1_111_111_109, "07081804"), (1_234_567_890, "89005924"), (20_000_000_000, "65353130")] {
            #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: time), digits: 8) == code)
        }
        #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: 59)) == "287082", "six digits: the last six")
    }

    @Test func base32RoundTripsAndRefusesOtherCharacters() {
        #expect(TOTP.base32(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(TOTP.base32Decoded("MZXW6YTBOI======") == Array("foobar".utf8))
        #expect(TOTP.base32Decoded("mzxw6ytboi") == Array("foobar".utf8))
        #expect(TOTP.base32Decoded("MZXW1") == nil)
        let secret = (0..<20).map { UInt8($0 * 7) }
        #expect(TOTP.base32Decoded(TOTP.base32(secret)) == secret)
        #expect(TOTP.code(base32Secret: TOTP.base32(Array("12345678901234567890".utf8)), at: Date(timeIntervalSince1970: 59)) == "287082")
    }
}
