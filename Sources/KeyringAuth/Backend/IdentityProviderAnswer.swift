/// The identity provider's part of an `accounts:signInWithIdp` answer.
package struct IdentityProviderAnswer: Hashable, Sendable {
    /// The provider, for example `google.com`.
    package var providerID: String
    /// The provider's profile of the user, as the JSON text Identity Toolkit gives (`rawUserInfo`).
    package var rawUserInfo: String?
    /// The user's name at the provider (`screenName`), for example a GitHub login.
    package var username: String?
    /// The provider's tokens, when the service returns them (`oauthIdToken`, `oauthAccessToken`, `oauthTokenSecret`).
    package var idToken: String?
    package var accessToken: String?
    package var tokenSecret: String?

    package init(
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
    package var credential: OAuthCredential? {
        guard idToken != nil || accessToken != nil else { return nil }
        return OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken, secret: tokenSecret)
    }
}
