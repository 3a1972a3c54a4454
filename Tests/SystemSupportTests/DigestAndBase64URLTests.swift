import Foundation
import SystemSupport
import Testing

/// GLib's digests as the package uses them, against FIPS 180-4's, RFC 2202's and RFC 4231's vectors, and base64url.
@Suite struct DigestAndBase64URLTests {
    @Test func digestsMatchTheStandardsVectors() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.hex(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Digest.hex(Digest.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(Digest.hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // RFC 4231's case 6: a key longer than the block is hashed first.
        #expect(Digest.hex(Digest.hmacSHA256(
            key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func base64URLIsWrittenUnpaddedAndReadEitherWay() {
        let bytes: [UInt8] = [0xfb, 0xff, 0x01, 0x3e]
        #expect(Base64URL.encode(bytes) == "-_8BPg")
        #expect(Base64URL.decode("-_8BPg").map { [UInt8]($0) } == bytes)
        #expect(Base64URL.decode("-_8BPg==").map { [UInt8]($0) } == bytes)
    }

    @Test(arguments: ["-_8B=Pg", "a", "abcde", "ab!c", "-_8BPg==="])
    func textThatIsNotBase64URLIsRefused(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
