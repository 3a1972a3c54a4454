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

    /// A credential of an email sign-in link (``Auth/sendSignInLink(toEmail:actionCodeSettings:)``) for
    /// ``Auth/signIn(with:)`` (the same as ``Auth/signIn(withEmail:link:)``), ``User/link(with:)`` (gives the
    /// user the email address, verified) and ``User/reauthenticate(with:)``. `email` must be the address the
    /// link was sent to.
    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        EmailLinkCredential(email: email, link: link)
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

/// The credential of an email sign-in link; its code is read from the link when it is used.
final class EmailLinkCredential: AuthCredential, @unchecked Sendable {
    let email: String
    let link: String

    init(email: String, link: String) {
        self.email = email
        self.link = link
        super.init(provider: EmailAuthProvider.id)
    }

    override var comparableFields: [String?] { [provider, email, link] }

    override func checkUsable() throws(AuthError) {
        try Self.checkField(email, "email address", code: .missingEmail, required: true)
        _ = try code
    }

    /// The link's code, or ``AuthErrorCode/invalidActionCode`` when the link is no sign-in link.
    var code: String {
        get throws(AuthError) { try Self.signInCode(in: link) }
    }

    /// The code of an email sign-in link.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidActionCode`` when `link` is malformed, too long, or
    ///   another action's link.
    static func signInCode(in link: String) throws(AuthError) -> String {
        try Auth.checkActionText(link, "email link", advice: "pass the whole link from the sign-in email")
        guard let parts = ActionCodeURL(link: link), let code = parts.code else {
            throw AuthError(
                .invalidActionCode, "The email link has no oobCode parameter; pass the whole link from the sign-in email.")
        }
        guard parts.operation == .emailLink else {
            throw AuthError(
                .invalidActionCode,
                "The email link is for \(parts.operation), not for signing in; pass the link from the sign-in email.")
        }
        try Auth.checkCode(code)
        return code
    }
}
