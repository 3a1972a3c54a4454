/// Twitter (X) credentials, as Firebase's `TwitterAuthProvider`: OAuth 1, a token and its secret.
public enum TwitterAuthProvider {
    /// The provider ID, `twitter.com`.
    public static let id = "twitter.com"

    /// A credential from the token and token secret Twitter's OAuth 1 flow gave the app. For
    /// ``Auth/signIn(with:)``, ``User/link(with:)`` and ``User/reauthenticate(with:)``.
    public static func credential(withToken token: String, secret: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: token, secret: secret)
    }
}
