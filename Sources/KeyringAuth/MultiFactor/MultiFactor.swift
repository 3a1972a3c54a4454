import Dispatch

/// A user's second factors, as Firebase's `MultiFactor` (``User/multiFactor``): list, enroll and withdraw them.
/// After an enrollment or a withdrawal the user's new tokens and factors are saved, so every running app of
/// the group sees the same ``enrolledFactors``.
public final class MultiFactor: Sendable {
    let user: User

    init(user: User) { self.user = user }

    /// The second factors enrolled, as the user's last lookup (sign-in, ``User/reload()``, an enrollment) listed them.
    public var enrolledFactors: [MultiFactorInfo] { (user.storedRecord.secondFactors ?? []).map(\.info) }

    /// A session to enroll a factor with (``TOTPMultiFactorGenerator/generateSecret(with:)``, or
    /// ``PhoneAuthProvider/verifyPhoneNumber(_:uiDelegate:multiFactorSession:)``), holding a current ID token.
    ///
    /// - Throws: ``AuthError`` when the token cannot be refreshed.
    public func session() async throws -> MultiFactorSession {
        MultiFactorSession(enrolling: user, idToken: try await user.idToken())
    }

    /// ``session()`` with a completion handler, called on the callback queue.
    public func getSessionWithCompletion(_ completion: (@Sendable (MultiFactorSession?, Error?) -> Void)?) {
        user.complete(completion) { () async throws in try await self.session() }
    }

    /// Enrolls the factor of `assertion` under `displayName`: an authenticator app
    /// (``TOTPMultiFactorGenerator/assertionForEnrollment(with:oneTimePassword:)``) or a phone number
    /// (``PhoneMultiFactorGenerator/assertion(with:)`` of the code sent with this user's ``session()``); the new tokens
    /// and factors are saved.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidVerificationCode`` for a wrong code (try again with the
    ///   current one), ``AuthErrorCode/sessionExpired`` for an SMS code that expired, ``AuthErrorCode/unverifiedEmail``,
    ///   ``AuthErrorCode/secondFactorAlreadyEnrolled``, ``AuthErrorCode/maximumSecondFactorCountExceeded``, or a
    ///   keychain or network error; on failure nothing stored changes.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        let auth = try user.owningAuth()
        let backend = auth.configuration.backend
        let finalize: @Sendable (String, AuthRequestContext) async throws(AuthError) -> AuthTokens
        if let phone = assertion as? PhoneMultiFactorAssertion {
            try phone.credential.checkUsable()
            finalize = { idToken, context throws(AuthError) in
                try await backend.finalizePhoneEnrollment(idToken: idToken, credential: phone.credential, displayName: displayName, context: context)
            }
        } else {
            guard let totp = assertion as? TOTPMultiFactorAssertion, let secret = totp.secret else {
                throw AuthError(
                    .missingMultiFactorInfo,
                    "A factor is enrolled with TOTPMultiFactorGenerator.assertionForEnrollment(with:oneTimePassword:) and a generated "
                        + "secret, or with PhoneMultiFactorGenerator.assertion(with:) and an SMS code.")
            }
            try AuthCredential.checkField(totp.oneTimePassword, "one-time password", code: .missingVerificationCode, required: true)
            finalize = { idToken, context throws(AuthError) in
                try await backend.finalizeTOTPEnrollment(
                    idToken: idToken, secret: secret, oneTimePassword: totp.oneTimePassword, displayName: displayName, context: context)
            }
        }
        let (idToken, context) = (try await user.idToken(), auth.requestContext)
        let tokens = try await finalize(idToken, context)
        try await auth.saveTokensAndLookUp(user, tokens: tokens, idToken: idToken, context: context)
    }

    /// ``enroll(with:displayName:)`` with a completion handler, called on the callback queue.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?, completion: (@Sendable (Error?) -> Void)?) {
        user.complete(completion) { () async throws in try await self.enroll(with: assertion, displayName: displayName) }
    }

    /// Withdraws the factor whose ``MultiFactorInfo/uid`` is `factorUID`; the new tokens and factors are saved.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/multiFactorInfoNotFound``, ``AuthErrorCode/requiresRecentLogin``, or a
    ///   keychain or network error.
    public func unenroll(withFactorUID factorUID: String) async throws {
        let auth = try user.owningAuth()
        let (idToken, context) = (try await user.idToken(), auth.requestContext)
        let tokens = try await auth.configuration.backend.withdrawSecondFactor(idToken: idToken, enrollmentID: factorUID, context: context)
        try await auth.saveTokensAndLookUp(user, tokens: tokens, idToken: idToken, context: context)
    }

    /// ``unenroll(withFactorUID:)`` of `factorInfo`.
    public func unenroll(with factorInfo: MultiFactorInfo) async throws {
        try await unenroll(withFactorUID: factorInfo.uid)
    }

    /// ``unenroll(withFactorUID:)`` with a completion handler, called on the callback queue.
    public func unenroll(withFactorUID factorUID: String, completion: (@Sendable (Error?) -> Void)?) {
        user.complete(completion) { () async throws in try await self.unenroll(withFactorUID: factorUID) }
    }

    /// ``unenroll(with:)`` with a completion handler, called on the callback queue.
    public func unenroll(with factorInfo: MultiFactorInfo, completion: (@Sendable (Error?) -> Void)?) {
        unenroll(withFactorUID: factorInfo.uid, completion: completion)
    }
}

extension User {
    /// The user's second factors, as Firebase's `User.multiFactor`.
    public var multiFactor: MultiFactor { MultiFactor(user: self) }
}
