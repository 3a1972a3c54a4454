import Dispatch
import SecretKeychain

/// Finishes a sign-in whose account needs a second factor, as Firebase's `MultiFactorResolver`: the
/// ``AuthErrorCode/secondFactorRequired`` error carries it (``AuthError/multiFactorResolver``, and
/// `AuthErrorUserInfoMultiFactorResolverKey` in the `NSError`'s `userInfo`).
///
/// ```swift
/// let factor = resolver.hints[0]                    // a TOTP factor: factorID "totp"
/// let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: code)
/// let result = try await resolver.resolveSignIn(with: assertion)
/// ```
public final class MultiFactorResolver: Sendable {
    /// The first factor's state.
    public let session: MultiFactorSession
    /// The account's second factors, to choose from.
    public let hints: [MultiFactorInfo]
    /// The ``Auth`` the sign-in finishes in.
    public let auth: Auth
    /// How the first factor signed in (for the user's record and the result).
    let method: SignInMethod
    /// The scope a sign-in into another scope (the CLI's `sign-in --group`) leaves the app in once finished.
    let switchingTo: AccessGroup??

    init(session: MultiFactorSession, hints: [MultiFactorInfo], auth: Auth, method: SignInMethod, switchingTo: AccessGroup?? = .none) {
        self.session = session
        self.hints = hints
        self.auth = auth
        self.method = method
        self.switchingTo = switchingTo
    }

    /// Finishes the sign-in with the second factor: the user is then signed in and saved, as any sign-in
    /// (in a shared group, for every app of the group), all or nothing.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidVerificationCode`` for a wrong or expired code (try
    ///   again), ``AuthErrorCode/invalidMultiFactorSession`` when the first factor's session expired or was
    ///   used (sign in again), ``AuthErrorCode/multiFactorInfoNotFound``, ``AuthErrorCode/sessionExpired`` for an SMS
    ///   code that expired, or a keychain or network error;
    ///   on any failure nothing stored changes.
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        try await auth.resolveSecondFactor(self, with: assertion)
    }

    /// ``resolveSignIn(with:)`` with a completion handler, called on the callback queue.
    public func resolveSignIn(with assertion: MultiFactorAssertion, completion: (@Sendable (AuthDataResult?, Error?) -> Void)?) {
        auth.complete({ result, error in completion?(result, error) }) { () async throws in
            try await self.resolveSignIn(with: assertion)
        }
    }
}

extension MultiFactorResolver: Hashable {
    public static func == (lhs: MultiFactorResolver, rhs: MultiFactorResolver) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
