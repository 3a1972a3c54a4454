/// Google credentials, as Firebase's `GoogleAuthProvider`: the tokens Google's sign-in gave the app.
public enum GoogleAuthProvider {
    /// The provider ID, `google.com`.
    public static let id = "google.com"

    /// A credential from Google's ID token and access token (either may be empty when Google's
    /// sign-in gave only the other). For ``Auth/signIn(with:)``, ``User/link(with:)`` and
    /// ``User/reauthenticate(with:)``.
    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: idToken, accessToken: accessToken)
    }
}
