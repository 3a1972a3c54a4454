import Foundation
import SystemSupport

/// The one-time values of one desktop sign-in (RFC 7636's PKCE, OAuth's `state`, OpenID Connect's
/// `nonce`), each 32 bytes from the system's secure generator (`getrandom`), base64url without padding.
package struct PKCE: Sendable {
    /// The code verifier, sent only to the token endpoint (43 characters).
    package let verifier: String
    /// The `state` the redirect must carry back.
    package let state: String
    /// The raw nonce, given to Firebase with the ID token.
    package let rawNonce: String

    package init() {
        var generator = SystemRandomNumberGenerator()
        func random() -> String { Self.base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }) }
        self.init(verifier: random(), state: random(), rawNonce: random())
    }

    package init(verifier: String, state: String, rawNonce: String) {
        self.verifier = verifier
        self.state = state
        self.rawNonce = rawNonce
    }

    /// The `S256` code challenge: base64url(SHA-256(verifier)), unpadded.
    package var challenge: String { Self.base64URL(SHA256.digest(Array(verifier.utf8))) }

    /// The nonce sent to the provider, which its ID token carries: SHA-256 of the raw nonce in lower-case hex,
    /// as Firebase expects (it hashes the raw nonce it is given and compares).
    package var hashedNonce: String { SHA256.hexDigest(Array(rawNonce.utf8)) }

    /// Base64url (RFC 4648 §5) without `=` padding.
    package static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }

    /// The bytes of unpadded (or padded) base64url text; `nil` when it is not base64url.
    package static func bytes(base64URL text: some StringProtocol) -> [UInt8]? { Base64URL.decode(text).map { [UInt8]($0) } }
}
