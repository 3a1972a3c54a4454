/// The identity provider's part of an `accounts:signInWithIdp` answer.
public struct IdentityProviderAnswer: Hashable, Sendable {
    /// The provider, for example `google.com`.
    public var providerID: String
    /// The provider's profile of the user, as the JSON text Identity Toolkit gives (`rawUserInfo`).
    public var rawUserInfo: String?
    /// The user's name at the provider (`screenName`), for example a GitHub login.
    public var username: String?
    /// The provider's tokens, when the service returns them (`oauthIdToken`, `oauthAccessToken`, `oauthTokenSecret`).
    public var idToken: String?
    public var accessToken: String?
    public var tokenSecret: String?

    public init(
        providerID: String, rawUserInfo: String? = nil, username: String? = nil, idToken: String? = nil,
        accessToken: String? = nil, tokenSecret: String? = nil
    ) {
        self.providerID = providerID
        self.rawUserInfo = rawUserInfo
        self.username = username
        self.idToken = idToken
        self.accessToken = accessToken
        self.tokenSecret = tokenSecret
    }

    /// The provider's tokens as a credential, when it gave any.
    public var credential: OAuthCredential? {
        guard idToken != nil || accessToken != nil else { return nil }
        return OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken, secret: tokenSecret)
    }
}
