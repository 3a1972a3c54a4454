/// What a sign-up or sign-in returns.
public struct BackendSignIn: Hashable, Sendable {
    /// The user's ID (`localId`).
    public var uid: String
    public var tokens: AuthTokens

    public init(uid: String, tokens: AuthTokens) {
        self.uid = uid
        self.tokens = tokens
    }
}
