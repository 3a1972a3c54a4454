// Email verification on a user's behalf: Firebase's `sendEmailVerification(with:)` and
// `sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`.
extension User {
    /// Has an email sent that verifies the user's address, as Firebase's `sendEmailVerification(with:)`;
    /// ``Auth/applyActionCode(_:)`` with its code marks the address verified.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/missingEmail`` when the account has no address,
    ///   ``AuthErrorCode/invalidContinueURI``, ``AuthErrorCode/unauthorizedDomain``, a token error
    ///   (``AuthErrorCode/userTokenExpired``), or a network error. Nothing stored changes, unless the ID token
    ///   had to be refreshed first (the new token is saved).
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        let auth = try requireAuth()
        let idToken = try await idToken()
        try await auth.configuration.backend.sendOutOfBandCode(
            OutOfBandCodeRequest(kind: .verifyEmail, idToken: idToken, settings: actionCodeSettings), context: auth.requestContext)
    }

    /// Has an email sent to `email` that, once applied (``Auth/applyActionCode(_:)``), verifies it and makes it
    /// the account's address, as Firebase's `sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`.
    /// The address changes only then; the change ends the account's sessions.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidEmail``, ``AuthErrorCode/emailAlreadyInUse``,
    ///   ``AuthErrorCode/requiresRecentLogin``, ``AuthErrorCode/invalidContinueURI``, or a token or network error.
    public func sendEmailVerification(
        beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil
    ) async throws {
        try Auth.checkEmail(email)
        let auth = try requireAuth()
        let idToken = try await idToken()
        try await auth.configuration.backend.sendOutOfBandCode(
            OutOfBandCodeRequest(kind: .verifyAndChangeEmail, idToken: idToken, newEmail: email, settings: actionCodeSettings),
            context: auth.requestContext)
    }

    private func requireAuth() throws(AuthError) -> Auth {
        guard let auth else { throw AuthError(.internalError, "The user's Auth instance no longer exists.") }
        return auth
    }
}
