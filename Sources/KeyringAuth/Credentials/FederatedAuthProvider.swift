/// A provider whose sign-in the person completes on the provider's own page, as Firebase's `FederatedAuthProvider`:
/// ``OAuthProvider``.
public protocol FederatedAuthProvider: Sendable {
    /// Signs the person in to the provider and gives the credential for ``Auth/signIn(with:)``.
    func credential(with uiDelegate: AuthUIDelegate?) async throws -> AuthCredential
}
