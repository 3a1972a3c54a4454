import Foundation
import SystemSupport
import Testing

/// GLib's digests as the package uses them, against FIPS 180-4's and RFC 2202's vectors, and base64url.
@Suite struct DigestAndBase64URLTests {
    @Test func digestsMatchTheStandardsVectors() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.hex(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Digest.hex(Digest.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
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
