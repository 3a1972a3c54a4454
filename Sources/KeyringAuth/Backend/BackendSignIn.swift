/// What a sign-up or sign-in returns.
public struct BackendSignIn: Hashable, Sendable {
    /// The user's ID (`localId`).
    public var uid: String
    public var tokens: AuthTokens
    /// Whether the sign-in created the account.
    public var isNewUser: Bool
    /// What an identity provider said, for a sign-in or link through one (`accounts:signInWithIdp`).
    public var identityProvider: IdentityProviderAnswer?

    public init(uid: String, tokens: AuthTokens, isNewUser: Bool = false, identityProvider: IdentityProviderAnswer? = nil) {
        self.uid = uid
        self.tokens = tokens
        self.isNewUser = isNewUser
        self.identityProvider = identityProvider
    }
}
