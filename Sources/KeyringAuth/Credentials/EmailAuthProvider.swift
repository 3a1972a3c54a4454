/// Email-and-password credentials, as Firebase's `EmailAuthProvider`.
public enum EmailAuthProvider {
    /// The provider ID, `password`.
    public static let id = "password"

    /// A credential for ``Auth/signIn(with:)`` (the same as ``Auth/signIn(withEmail:password:)``),
    /// ``User/link(with:)`` (gives an anonymous user an email and password, making it permanent) and
    /// ``User/reauthenticate(with:)``.
    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailPasswordCredential(email: email, password: password)
    }
}

/// The credential ``EmailAuthProvider`` makes.
final class EmailPasswordCredential: AuthCredential, @unchecked Sendable {
    let email: String
    let password: String

    init(email: String, password: String) {
        self.email = email
        self.password = password
        super.init(provider: EmailAuthProvider.id)
    }

    override var comparableFields: [String?] { [provider, email, password] }

    override func checkUsable() throws(AuthError) {
        try Self.checkField(email, "email address", code: .missingEmail, required: true)
        try Self.checkField(password, "password", code: .missingPassword, required: true)
    }
}
