/// Facebook credentials, as Firebase's `FacebookAuthProvider`.
public enum FacebookAuthProvider {
    /// The provider ID, `facebook.com`.
    public static let id = "facebook.com"

    /// A credential from the access token Facebook Login gave the app. For ``Auth/signIn(with:)``,
    /// ``User/link(with:)`` and ``User/reauthenticate(with:)``.
    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: nil, accessToken: accessToken)
    }
}
