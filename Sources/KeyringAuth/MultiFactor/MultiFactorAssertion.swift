import Dispatch

/// Proof of a second factor, as Firebase's `MultiFactorAssertion`: made by ``TOTPMultiFactorGenerator``,
/// passed to ``MultiFactorResolver/resolveSignIn(with:)``.
public class MultiFactorAssertion: @unchecked Sendable {
    /// The kind of factor: ``TOTPMultiFactorID``.
    public let factorID: String

    init(factorID: String) { self.factorID = factorID }
}

/// An authenticator app's code for a TOTP second factor, as Firebase's `TOTPMultiFactorAssertion`.
/// (`@unchecked Sendable`: every stored property is a constant.)
public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    /// The enrollment the code is for (a sign-in).
    let enrollmentID: String?
    /// The secret being enrolled (an enrollment).
    let secret: TOTPSecret?
    let oneTimePassword: String

    init(enrollmentID: String?, secret: TOTPSecret? = nil, oneTimePassword: String) {
        self.enrollmentID = enrollmentID
        self.secret = secret
        self.oneTimePassword = oneTimePassword
        super.init(factorID: TOTPMultiFactorID)
    }
}

/// Makes the assertions of a TOTP second factor, as Firebase's `TOTPMultiFactorGenerator`.
public enum TOTPMultiFactorGenerator {
    /// The assertion that finishes a sign-in with the code the user's authenticator app shows for the
    /// factor `enrollmentID` (a hint's ``MultiFactorInfo/uid``).
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(enrollmentID: enrollmentID, oneTimePassword: oneTimePassword)
    }

    /// The assertion that finishes enrolling `secret` with the first code the user's authenticator app shows for it,
    /// for ``MultiFactor/enroll(with:displayName:)``.
    public static func assertionForEnrollment(with secret: TOTPSecret, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(enrollmentID: nil, secret: secret, oneTimePassword: oneTimePassword)
    }

    /// A new secret to enroll, for the user of `session` (``MultiFactor/session()``): the user's email must be
    /// verified, and they must have signed in with a password, an email link or an identity provider.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/unverifiedEmail``, ``AuthErrorCode/unsupportedFirstFactor``,
    ///   ``AuthErrorCode/maximumSecondFactorCountExceeded``, ``AuthErrorCode/invalidMultiFactorSession`` for a
    ///   sign-in's session, or a network error.
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        guard case .enrollment(let user, let idToken) = session.kind else { throw notAnEnrollmentSession }
        let auth = try user.owningAuth()
        return try await auth.configuration.backend.startTOTPEnrollment(idToken: idToken, context: auth.requestContext)
    }

    /// ``generateSecret(with:)`` with a completion handler, called on the callback queue of the session's `Auth`.
    public static func generateSecret(with session: MultiFactorSession, completion: (@Sendable (TOTPSecret?, Error?) -> Void)?) {
        guard case .enrollment(let user, _) = session.kind else {
            session.callbackQueue.async { completion?(nil, notAnEnrollmentSession) }
            return
        }
        user.complete(completion) { () async throws in try await generateSecret(with: session) }
    }

    private static var notAnEnrollmentSession: AuthError {
        AuthError(.invalidMultiFactorSession, "A secret is generated with the session of a signed-in user's multiFactor.session().")
    }
}
