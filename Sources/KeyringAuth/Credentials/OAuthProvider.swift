/// Credentials of any OAuth 2 or OpenID Connect provider, as the static methods of Firebase's
/// `OAuthProvider`: `github.com`, `apple.com`, `microsoft.com`, `yahoo.com`, an `oidc.*` provider.
///
/// The app gets the provider's tokens itself (its own OAuth flow); Firebase's web-view sign-in
/// (`OAuthProvider(providerID:)` with `getCredentialWith`) is not available on Linux.
public enum OAuthProvider {
    /// A credential from the provider's ID token and, if it gave one, its access token.
    public static func credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken)
    }

    /// A credential from the provider's ID token and the raw nonce whose SHA-256 it carries (Apple,
    /// and OIDC providers set up with a nonce), and, if it gave one, its access token.
    public static func credential(
        providerID: AuthProviderID, idToken: String, rawNonce: String, accessToken: String? = nil
    ) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A credential from the provider's access token alone (GitHub, Microsoft).
    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: nil, accessToken: accessToken)
    }

    /// ``credential(providerID:idToken:accessToken:)`` with the provider ID as a string, as Firebase's
    /// older `credential(withProviderID:idToken:accessToken:)`.
    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken)
    }

    /// ``credential(providerID:accessToken:)`` with the provider ID as a string, as Firebase's older
    /// `credential(withProviderID:accessToken:)`.
    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: nil, accessToken: accessToken)
    }

    /// ``credential(providerID:idToken:rawNonce:accessToken:)`` with the provider ID as a string, as
    /// Firebase's older `credential(withProviderID:idToken:rawNonce:accessToken:)`.
    public static func credential(
        withProviderID providerID: String, idToken: String, rawNonce: String, accessToken: String? = nil
    ) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }
}
