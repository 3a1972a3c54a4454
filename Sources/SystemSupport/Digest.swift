internal import CGLib

/// SHA-1, SHA-256, HMAC-SHA-1 and HMAC-SHA-256 through GLib's `GChecksum` and `GHmac`: PKCE's `S256`
/// challenge, the desktop flow's hashed nonce, the emulator's TOTP codes and App Check tokens. Checked
/// against FIPS 180-4's, RFC 2202's and RFC 4231's vectors in the tests.
package enum Digest {
    /// The 32-byte SHA-256 digest of `message`.
    package static func sha256(_ message: some Sequence<UInt8>) -> [UInt8] {
        checksum(G_CHECKSUM_SHA256, length: 32, message)
    }

    /// The 20-byte SHA-1 digest of `message`.
    package static func sha1(_ message: some Sequence<UInt8>) -> [UInt8] {
        checksum(G_CHECKSUM_SHA1, length: 20, message)
    }

    /// HMAC-SHA-1 (RFC 2104) of `message` under `key`: 20 bytes.
    package static func hmacSHA1(key: [UInt8], message: some Sequence<UInt8>) -> [UInt8] {
        hmac(G_CHECKSUM_SHA1, length: 20, key: key, message)
    }

    /// HMAC-SHA-256 (RFC 2104, RFC 4231) of `message` under `key`: 32 bytes.
    package static func hmacSHA256(key: [UInt8], message: some Sequence<UInt8>) -> [UInt8] {
        hmac(G_CHECKSUM_SHA256, length: 32, key: key, message)
    }

    /// Lower-case hexadecimal, two digits a byte.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] }, as: UTF8.self)
    }

    private static func hmac(_ type: GChecksumType, length: Int, key: [UInt8], _ message: some Sequence<UInt8>) -> [UInt8] {
        let hmac = key.withUnsafeBufferPointer { g_hmac_new(type, $0.baseAddress, gsize($0.count)) }!
        defer { g_hmac_unref(hmac) }
        Array(message).withUnsafeBufferPointer { g_hmac_update(hmac, $0.baseAddress, gssize($0.count)) }
        var digest = [UInt8](repeating: 0, count: length)
        var written = gsize(length)
        digest.withUnsafeMutableBufferPointer { g_hmac_get_digest(hmac, $0.baseAddress, &written) }
        return digest
    }

    private static func checksum(_ type: GChecksumType, length: Int, _ message: some Sequence<UInt8>) -> [UInt8] {
        let checksum = g_checksum_new(type)!
        defer { g_checksum_free(checksum) }
        Array(message).withUnsafeBufferPointer { g_checksum_update(checksum, $0.baseAddress, gssize($0.count)) }
        var digest = [UInt8](repeating: 0, count: length)
        var written = gsize(length)
        digest.withUnsafeMutableBufferPointer { g_checksum_get_digest(checksum, $0.baseAddress, &written) }
        return digest
    }
}
