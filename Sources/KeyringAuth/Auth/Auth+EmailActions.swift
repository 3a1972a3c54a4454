import Foundation
import Logging

// Firebase's email actions: password reset, email verification and email-link sign-in, through the
// backend's `accounts:sendOobCode`, `accounts:resetPassword`, `accounts:update` (with an `oobCode`) and
// `accounts:signInWithEmailLink`. An applied code that changes the current user's account is followed by a
// reload, saved to the group's item, so every running app of the group sees it (live sync).
extension Auth {
    /// Has a password-reset email sent to `email`, as Firebase's `sendPasswordReset(withEmail:actionCodeSettings:)`.
    /// With email enumeration protection on, an address of no account is not refused (nothing is sent).
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidEmail``, ``AuthErrorCode/userNotFound``,
    ///   ``AuthErrorCode/missingContinueURI``, ``AuthErrorCode/invalidContinueURI``,
    ///   ``AuthErrorCode/unauthorizedDomain``, or a network error. Nothing stored changes.
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try Self.checkEmail(email)
        try await configuration.backend.sendOutOfBandCode(
            OutOfBandCodeRequest(kind: .passwordReset, email: email, settings: actionCodeSettings), context: requestContext)
    }

    /// Sets a new password with the code of a password-reset email, as Firebase's `confirmPasswordReset(withCode:newPassword:)`;
    /// the code is used up.
    ///
    /// The reset ends the account's sessions. When the current user is that account, its session is checked at
    /// once (Firebase finds out at its next token refresh): it is signed out of every app of the group.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidActionCode`` for a malformed, used or other action's code,
    ///   ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/weakPassword``, ``AuthErrorCode/userDisabled``, or a
    ///   network error. On failure the password and everything stored are unchanged.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        try Self.checkCode(code)
        try AuthCredential.checkField(newPassword, "new password", code: .missingPassword, required: true)
        let info = try await configuration.backend.resetPassword(oobCode: code, newPassword: newPassword, context: requestContext)
        guard let user = currentUser, let email = user.email, email.lowercased() == info.email.lowercased() else { return }
        await catchUp(with: user, after: "the password reset")
    }

    /// The email address a password-reset code was sent to, as Firebase's `verifyPasswordResetCode(_:)`; the code
    /// is not used up.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidActionCode`` (also for a code of another action),
    ///   ``AuthErrorCode/expiredActionCode``, or a network error.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let info = try await checkActionCode(code)
        guard info.operation == .passwordReset else {
            throw AuthError(
                .invalidActionCode, "This code is for \(info.operation), not a password reset; pass the code from the reset email.")
        }
        return info.email
    }

    /// What an email action code is for and whom it was sent to, as Firebase's `checkActionCode(_:)`; the code is
    /// not used up.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidActionCode``, ``AuthErrorCode/expiredActionCode``, or a
    ///   network error.
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        try Self.checkCode(code)
        return try await configuration.backend.resetPassword(oobCode: code, newPassword: nil, context: requestContext)
    }

    /// Applies an email action code that needs nothing else, as Firebase's `applyActionCode(_:)`: an email
    /// verification, or the verification of a new address that then replaces the old one. The code is used up.
    ///
    /// When the code changed the current user's account, the user's token is refreshed and the user reloaded and
    /// saved, so every running app of the group sees the verified address at once (Firebase leaves that to the
    /// app's next `reload()`); an address change ends the account's sessions, so the user is then signed out of
    /// every app of the group. A failure of that follow-up is logged, not thrown: the code was applied.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidActionCode`` (also for a password-reset or sign-in code),
    ///   ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/emailAlreadyInUse``, or a network error.
    public func applyActionCode(_ code: String) async throws {
        try Self.checkCode(code)
        let uid = try await configuration.backend.applyActionCode(code, context: requestContext)
        guard let user = currentUser, uid == nil || uid == user.uid else { return }
        await catchUp(with: user, after: "applying the action code")
    }

    /// Brings `user` (the current user, whose account a code just changed) up to date in one saved write, so that
    /// every running app of the group sees one change: new tokens (an ID token with the new `email_verified` or
    /// address) and the account as the backend describes it. A session the change ended (a password reset, an
    /// address change) is signed out, in every app of the group. A failure is logged: the code was applied.
    func catchUp(with user: User, after change: String) async {
        let context = requestContext
        do throws(AuthError) {
            let tokens: AuthTokens
            do throws(AuthError) {
                tokens = try await configuration.backend.refresh(refreshToken: user.storedRecord.tokens.refreshToken, context: context)
            } catch where [.userTokenExpired, .userNotFound, .userDisabled, .invalidUserToken].contains(error.code) {
                try await signOutIfCurrent(user)
                return
            }
            let account = try await configuration.backend.lookUp(idToken: tokens.idToken, context: context)
            try await updateIfCurrent(user) { record in
                record.tokens = tokens
                record.apply(account)
            }
        } catch {
            logger.warning("After \(change), the current user could not be brought up to date", metadata: ["error": "\(error)"])
        }
    }

    /// Has an email sign-in link sent to `email`, as Firebase's `sendSignInLink(toEmail:actionCodeSettings:)`.
    /// The settings need a ``ActionCodeSettings/url`` and ``ActionCodeSettings/handleCodeInApp`` set; keep the
    /// address for ``signIn(withEmail:link:)``.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidEmail``, ``AuthErrorCode/missingContinueURI``,
    ///   ``AuthErrorCode/invalidContinueURI``, ``AuthErrorCode/unauthorizedDomain``,
    ///   ``AuthErrorCode/operationNotAllowed`` (email-link sign-in disabled), or a network error.
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        try Self.checkEmail(email)
        try await configuration.backend.sendOutOfBandCode(
            OutOfBandCodeRequest(kind: .emailSignIn, email: email, settings: actionCodeSettings), context: requestContext)
    }

    /// Whether `link` is an email sign-in link, as Firebase's `isSignIn(withEmailLink:)`: it has a code and the
    /// `signIn` mode (also inside a Hosting or Dynamic Links URL's `link` parameter). Nothing is sent.
    public func isSignIn(withEmailLink link: String) -> Bool {
        (try? EmailLinkCredential.signInCode(in: link)) != nil
    }

    /// Signs in with an email sign-in link, as Firebase's `signIn(withEmail:link:)`, creating the account on its first
    /// sign-in; the address counts as verified. `email` must be the address the link was sent to.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidActionCode`` (no sign-in link, or its code was used),
    ///   ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/invalidEmail`` (another address than the link's),
    ///   ``AuthErrorCode/userDisabled``, or a keychain or network error; on failure nothing stored changes.
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, link: link))
    }

    /// ``signIn(withEmail:link:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func signIn(withEmail email: String, link: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, link: link), switchingTo: accessGroup)
    }

    /// The backend's sign-in with an email link credential.
    func signInWithEmailLink(_ credential: EmailLinkCredential, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try await configuration.backend.signIn(email: credential.email, emailLinkCode: try credential.code, linkingTo: nil, context: context)
    }

    /// Refuses an email address that cannot be sent.
    static func checkEmail(_ email: String) throws(AuthError) {
        guard !email.isEmpty else { throw AuthError(.missingEmail, "An email address is required.") }
        guard email.utf8.count <= 320, !email.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw AuthError(.invalidEmail, "The email address is malformed (over 320 bytes, or with control characters).")
        }
    }

    /// Refuses an action code that cannot be sent: empty, oversized, or with control characters.
    static func checkCode(_ code: String) throws(AuthError) {
        try checkActionText(code, "action code", advice: "pass the oobCode parameter of the email's link")
    }

    /// Refuses an action code or link that cannot be sent, with ``AuthErrorCode/invalidActionCode``.
    static func checkActionText(_ text: String, _ name: String, advice: String) throws(AuthError) {
        guard !text.isEmpty else { throw AuthError(.invalidActionCode, "The \(name) is empty; \(advice).") }
        guard text.utf8.count <= AuthCredential.maximumFieldBytes else {
            throw AuthError(
                .invalidActionCode, "The \(name) is \(text.utf8.count) bytes, more than the \(AuthCredential.maximumFieldBytes) taken; \(advice).")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw AuthError(.invalidActionCode, "The \(name) contains control characters (a line break, say); \(advice), without them.")
        }
    }
}
