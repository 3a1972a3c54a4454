import Foundation

/// What a user proves their identity with, as Firebase's `AuthCredential`: made by a provider
/// (``EmailAuthProvider``, ``GoogleAuthProvider``, ``GitHubAuthProvider``, ``OAuthProvider``) and
/// passed to ``Auth/signIn(with:)``, ``User/link(with:)`` or ``User/reauthenticate(with:)``.
///
/// Opaque apart from ``provider``: printing or dumping a credential never shows its secrets.
/// Immutable, so it can be passed between threads (`@unchecked` only because the class has
/// subclasses, which Swift does not check; every stored property is a `let` of a `Sendable` type).
public class AuthCredential: @unchecked Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The provider ID: `password`, `google.com`, `github.com`, `apple.com`, `oidc.…`, …
    public let provider: String

    /// The longest token, password or nonce a credential takes (16 KiB): real ID and access tokens are a
    /// few kilobytes, and larger input is refused before anything is sent.
    public static let maximumFieldBytes = 16 * 1024

    init(provider: String) {
        self.provider = provider
    }

    /// The fields that make two credentials equal (secrets included; never printed).
    var comparableFields: [String?] { [provider] }

    /// Refuses a credential that cannot be sent, before anything is sent or stored.
    ///
    /// - Throws: ``AuthError`` with a code saying what is wrong.
    func checkUsable() throws(AuthError) {}

    public static func == (lhs: AuthCredential, rhs: AuthCredential) -> Bool {
        type(of: lhs) == type(of: rhs) && lhs.comparableFields == rhs.comparableFields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: self)))
        hasher.combine(comparableFields)
    }

    /// `AuthCredential(provider: google.com)`: the provider only, never a token.
    public var description: String { "\(type(of: self))(provider: \(provider))" }

    /// The provider only, so that `dump` and debuggers do not show the secrets.
    public var customMirror: Mirror { Mirror(self, children: ["provider": provider], displayStyle: .class) }

    /// Checks one secret field: present when required, not too large, no control characters.
    static func checkField(
        _ value: String?, _ name: String, code: AuthErrorCode, required: Bool = false
    ) throws(AuthError) {
        guard let value, !value.isEmpty else {
            if required { throw AuthError(code, "The credential's \(name) is empty; pass the value the provider gave.") }
            return
        }
        guard value.utf8.count <= maximumFieldBytes else {
            throw AuthError(
                code, "The credential's \(name) is \(value.utf8.count) bytes, more than the \(maximumFieldBytes) a credential takes; "
                    + "pass the value the provider gave, unchanged.")
        }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw AuthError(
                code, "The credential's \(name) contains control characters (a line break, say); pass the value the provider gave, "
                    + "without a trailing newline.")
        }
    }
}
