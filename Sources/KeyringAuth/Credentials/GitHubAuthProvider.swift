/// GitHub credentials, as Firebase's `GitHubAuthProvider`.
public enum GitHubAuthProvider {
    /// The provider ID, `github.com`.
    public static let id = "github.com"

    /// A credential from the access token GitHub's OAuth flow gave the app. For ``Auth/signIn(with:)``,
    /// ``User/link(with:)`` and ``User/reauthenticate(with:)``.
    public static func credential(withToken token: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: token)
    }
}
