// The project's password policy, for the broker's clients: Firebase's JavaScript SDK checks a password against it
// (`validatePassword`); Firebase's Apple SDK has no such call.
extension Auth {
    /// The password policy of the project, or of this instance's tenant (``tenantID``), as Identity Toolkit answers
    /// it; an emulator, which serves none, answers a project's without a policy (``PasswordPolicyAnswer/none``).
    ///
    /// - Throws: ``AuthError``: a network error, or what the service refuses.
    package func passwordPolicy() async throws(AuthError) -> PasswordPolicyAnswer {
        try await configuration.backend.passwordPolicy(context: requestContext)
    }
}
