/// The identity service ``Auth`` signs users in with: Firebase's Identity Toolkit REST API,
/// its local emulator, or a test double. Every failure is an ``AuthError`` with Firebase's code.
public protocol AuthBackend: Sendable {
    /// The API key requests are made with; users signed in through another key are foreign.
    var apiKey: String { get }

    /// Creates an anonymous account (`accounts:signUp` with no credential).
    func signUpAnonymously(tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Creates an email/password account (`accounts:signUp`).
    func signUp(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Signs in with email and password (`accounts:signInWithPassword`).
    func signIn(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Describes the account an ID token belongs to (`accounts:lookup`).
    func lookUp(idToken: String) async throws(AuthError) -> BackendAccount
    /// Changes an account (`accounts:update`); returns new tokens when the backend issued them.
    func update(idToken: String, changes: AccountChanges) async throws(AuthError) -> AuthTokens?
    /// Deletes an account (`accounts:delete`).
    func delete(idToken: String) async throws(AuthError)
    /// Exchanges a refresh token for new tokens (the secure-token endpoint).
    func refresh(refreshToken: String) async throws(AuthError) -> AuthTokens
}
