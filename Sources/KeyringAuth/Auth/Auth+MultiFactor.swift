import SecretKeychain
import Foundation

// Second factors at sign-in: a first factor answered with a challenge becomes `secondFactorRequired` carrying
// a resolver, and the resolver finishes the sign-in as any other (saved to the current group, all or nothing).
extension Auth {
    /// Runs a first factor's backend call; a second factor asked for becomes an error carrying this `Auth`'s
    /// ``MultiFactorResolver`` for `method`.
    func askingForSecondFactor(
        _ method: SignInMethod, switchingTo group: AccessGroup?? = .none, _ body: () async throws(AuthError) -> BackendSignIn
    ) async throws(AuthError) -> BackendSignIn {
        do throws(AuthError) {
            return try await body()
        } catch {
            guard let challenge = error.secondFactorChallenge else { throw error }
            var asked = error
            let hints = challenge.factors.map(\.info)
            asked.multiFactorResolver = MultiFactorResolver(
                session: MultiFactorSession(pendingCredential: challenge.pendingCredential, callbackQueue: configuration.callbackQueue), hints: hints, auth: self, method: method,
                switchingTo: group)
            throw asked
        }
    }

    /// ``MultiFactorResolver/resolveSignIn(with:)``.
    func resolveSecondFactor(_ resolver: MultiFactorResolver, with assertion: MultiFactorAssertion) async throws(AuthError) -> AuthDataResult {
        let context = requestContext
        guard let pendingCredential = resolver.session.pendingCredential else {
            throw AuthError(.invalidMultiFactorSession, "The resolver's session is not a sign-in's.")
        }
        let signedIn: BackendSignIn
        if let phone = assertion as? PhoneMultiFactorAssertion {
            // The SMS code was sent for one of the hints (verifyPhoneNumber(with:)); its verification ID names it.
            try phone.credential.checkUsable()
            signedIn = try await configuration.backend.finalizePhoneSecondFactorSignIn(
                pendingCredential: pendingCredential, credential: phone.credential, context: context)
        } else {
            guard let totp = assertion as? TOTPMultiFactorAssertion, let enrollmentID = totp.enrollmentID else {
                throw AuthError(
                    .missingMultiFactorInfo,
                    "A sign-in is finished with TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID:oneTimePassword:) "
                        + "or PhoneMultiFactorGenerator.assertion(with:), for one of the resolver's hints.")
            }
            guard let hint = resolver.hints.first(where: { $0.uid == enrollmentID }) else {
                throw AuthError(.multiFactorInfoNotFound, "The enrollment ID is none of the resolver's hints; pass a hint's uid.")
            }
            guard hint.factorID == TOTPMultiFactorID else {
                throw AuthError(
                    .missingMultiFactorInfo,
                    "The factor \(String(reflecting: hint.displayName ?? hint.uid)) is a phone number: verify it with "
                        + "PhoneAuthProvider.verifyPhoneNumber(with:uiDelegate:multiFactorSession:) and finish with PhoneMultiFactorGenerator.")
            }
            try AuthCredential.checkField(totp.oneTimePassword, "one-time password", code: .missingVerificationCode, required: true)
            signedIn = try await configuration.backend.finalizeSecondFactorSignIn(
                pendingCredential: pendingCredential, enrollmentID: enrollmentID, oneTimePassword: totp.oneTimePassword, context: context)
        }
        if case .some(let group) = resolver.switchingTo {
            return try await finishSignIn(signedIn, method: resolver.method, context: context, switchingTo: group)
        }
        return try await finishSignIn(signedIn, method: resolver.method, context: context)
    }
}
