import SystemSupport

/// SHA-256 (FIPS 180-4), for PKCE's `S256` code challenge and the hashed nonce of the desktop OAuth
/// flow: GLib's, through ``Digest``.
package enum SHA256 {
    /// The 32-byte digest of `message`.
    package static func digest<Bytes: Sequence<UInt8>>(_ message: Bytes) -> [UInt8] { Digest.sha256(message) }

    /// The digest in lower-case hexadecimal (64 characters).
    package static func hexDigest<Bytes: Sequence<UInt8>>(_ message: Bytes) -> String { Digest.hex(Digest.sha256(message)) }
}
