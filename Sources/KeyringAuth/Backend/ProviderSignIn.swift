/// What `accounts:createAuthUri` is asked for to begin a provider's sign-in under the Firebase project's registration.
package struct ProviderSignInRequest: Sendable {
    /// The Firebase provider ID: `microsoft.com`, `yahoo.com`, an `oidc.` provider, …
    package var providerID: String
    /// Where the provider sends the browser back (the loopback listener's URL).
    package var continueURI: String
    /// The provider's own parameters (`tenant`, `prompt`, `login_hint`), as Firebase's `OAuthProvider.customParameters`.
    package var customParameters: [String: String]
    /// More scopes, as Firebase's `OAuthProvider.scopes`.
    package var scopes: [String]
    /// The session the answer is bound to.
    package var sessionID: String

    package init(providerID: String, continueURI: String, customParameters: [String: String], scopes: [String], sessionID: String) {
        self.providerID = providerID
        self.continueURI = continueURI
        self.customParameters = customParameters
        self.scopes = scopes
        self.sessionID = sessionID
    }
}

/// `accounts:createAuthUri`'s answer: the provider's authorization URL and the session it is bound to.
package struct ProviderSignInStart: Sendable {
    package var authorizationURL: String
    package var sessionID: String

    package init(authorizationURL: String, sessionID: String) {
        self.authorizationURL = authorizationURL
        self.sessionID = sessionID
    }
}
