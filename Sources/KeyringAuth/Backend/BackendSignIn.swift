/// What a sign-up or sign-in returns.
package struct BackendSignIn: Hashable, Sendable {
    /// The user's ID (`localId`).
    package var uid: String
    package var tokens: AuthTokens
    /// Whether the sign-in created the account.
    package var isNewUser: Bool
    /// What an identity provider said, for a sign-in or link through one (`accounts:signInWithIdp`).
    package var identityProvider: IdentityProviderAnswer?

    package init(uid: String, tokens: AuthTokens, isNewUser: Bool = false, identityProvider: IdentityProviderAnswer? = nil) {
        self.uid = uid
        self.tokens = tokens
        self.isNewUser = isNewUser
        self.identityProvider = identityProvider
    }
}
