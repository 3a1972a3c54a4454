/// The IDs of Firebase's sign-in providers, as Firebase's `AuthProviderID`: ``rawValue`` is what
/// ``AuthCredential/provider`` and ``ProviderUserInfo/providerID`` hold.
public struct AuthProviderID: Hashable, Sendable, CustomStringConvertible {
    /// The provider ID, for example `google.com`.
    public let rawValue: String

    private init(rawValue: String) { self.rawValue = rawValue }

    /// Sign in with Apple: `apple.com`.
    public static var apple: AuthProviderID { AuthProviderID(rawValue: "apple.com") }
    /// Email and password: `password`.
    public static var email: AuthProviderID { AuthProviderID(rawValue: "password") }
    /// Facebook: `facebook.com`.
    public static var facebook: AuthProviderID { AuthProviderID(rawValue: "facebook.com") }
    /// Game Center: `gc.apple.com` (Apple platforms only; listed for completeness).
    public static var gameCenter: AuthProviderID { AuthProviderID(rawValue: "gc.apple.com") }
    /// GitHub: `github.com`.
    public static var gitHub: AuthProviderID { AuthProviderID(rawValue: "github.com") }
    /// Google: `google.com`.
    public static var google: AuthProviderID { AuthProviderID(rawValue: "google.com") }
    /// Phone numbers: `phone`.
    public static var phone: AuthProviderID { AuthProviderID(rawValue: "phone") }
    /// Any other provider, for example `microsoft.com` or an OpenID Connect provider `oidc.<name>`.
    public static func custom(_ value: String) -> AuthProviderID { AuthProviderID(rawValue: value) }

    public var description: String { rawValue }
}
