import Foundation

/// An OAuth 2 / OpenID Connect provider as the desktop sign-in (``DesktopOAuthFlow``) talks to it:
/// its Firebase provider ID, its authorization and token endpoints, and the scopes to ask for.
///
/// KeyringAuth's own API (Firebase's SDKs have no desktop provider sign-in). ``google`` is Google's;
/// any other OpenID Connect provider is ``openIDConnect(providerID:issuer:authorizationEndpoint:tokenEndpoint:scopes:)``.
public struct DesktopOAuthProvider: Hashable, Sendable {
    /// The Firebase provider ID the credential carries: `google.com`, `oidc.<name>`, `microsoft.com`, …
    public var providerID: String
    /// Where the browser is sent to sign in (`response_type=code`).
    public var authorizationEndpoint: URL
    /// Where the authorization code is exchanged for tokens.
    public var tokenEndpoint: URL
    /// The issuer the ID token's `iss` must name (and an `iss` in the redirect, RFC 9207); `nil` checks none.
    public var issuer: String?
    /// The scopes asked for; `openid` makes the provider return an ID token.
    public var scopes: [String]

    /// A provider with these endpoints.
    ///
    /// - Parameters:
    ///   - providerID: The Firebase provider ID, as ``AuthCredential/provider``.
    ///   - authorizationEndpoint: The authorization endpoint (`https`, or `http` on a loopback host for tests).
    ///   - tokenEndpoint: The token endpoint (the same).
    ///   - issuer: The issuer the ID token must name, if known.
    ///   - scopes: The scopes to ask for.
    public init(
        providerID: String, authorizationEndpoint: URL, tokenEndpoint: URL, issuer: String? = nil,
        scopes: [String] = ["openid", "email", "profile"]
    ) {
        self.providerID = providerID
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.issuer = issuer
        self.scopes = scopes
    }

    /// Google (`google.com`), for an OAuth client of type "Desktop app" made in the Google Cloud console of
    /// the Firebase project: Google's installed-app flow with scopes `openid email profile`.
    public static let google = DesktopOAuthProvider(
        providerID: "google.com", authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!,
        tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!, issuer: "https://accounts.google.com")

    /// GitHub (`github.com`) in the browser: GitHub's web flow, with a loopback redirect (register
    /// `http://127.0.0.1/` as the OAuth app's callback; the port may differ), PKCE and `state`, and the OAuth app's
    /// client secret, which GitHub's token endpoint requires of web-flow apps (in a desktop app it is not secret). An
    /// access token, no ID token: scopes `read:user` and `user:email`. ``GitHubDeviceFlow`` needs no secret.
    public static let github = github(host: URL(string: "https://github.com")!)

    /// ``github``'s web flow on a GitHub Enterprise Server at `host` (`https://github.example.com`).
    public static func github(host: URL) -> DesktopOAuthProvider {
        DesktopOAuthProvider(
            providerID: "github.com", authorizationEndpoint: host.appendingPathComponent("login/oauth/authorize"),
            tokenEndpoint: host.appendingPathComponent("login/oauth/access_token"), issuer: nil, scopes: ["read:user", "user:email"])
    }

    /// Any OpenID Connect provider, by its endpoints (its `/.well-known/openid-configuration` lists them).
    ///
    /// - Parameters:
    ///   - providerID: The Firebase provider ID set up for it, usually `oidc.<name>`.
    ///   - issuer: Its issuer (the `iss` of its ID tokens).
    ///   - authorizationEndpoint: Its `authorization_endpoint`.
    ///   - tokenEndpoint: Its `token_endpoint`.
    ///   - scopes: The scopes to ask for.
    public static func openIDConnect(
        providerID: String, issuer: String?, authorizationEndpoint: URL, tokenEndpoint: URL,
        scopes: [String] = ["openid", "email", "profile"]
    ) -> DesktopOAuthProvider {
        DesktopOAuthProvider(
            providerID: providerID, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint, issuer: issuer,
            scopes: scopes)
    }

    /// The hosts of Microsoft's sign-in (Entra ID, personal accounts, External ID), whose registrations take a loopback
    /// redirect with any port only as `http://localhost` ("Redirect URI restrictions" in Microsoft's identity platform
    /// documentation; `http://127.0.0.1` needs the app's manifest).
    static let localhostRedirectHosts = ["login.microsoftonline.com", "login.microsoft.com", "login.live.com"]

    /// Where the loopback redirect goes: `localhost` for Microsoft's sign-in, `127.0.0.1` for every other provider
    /// (RFC 8252 §7.3; Google's guide for installed apps).
    var loopbackHost: LoopbackRedirectListener.Host {
        guard let host = authorizationEndpoint.host?.lowercased() else { return .ipv4 }
        let microsoft = Self.localhostRedirectHosts.contains(host) || host.hasSuffix(".ciamlogin.com")
        return microsoft ? .localhost : .ipv4
    }

    /// The placeholder of a multi-tenant issuer (Microsoft's `https://login.microsoftonline.com/{tenantid}/v2.0`), which
    /// stands for the tenant of each ID token (its `tid` claim).
    static let tenantPlaceholder = "{tenantid}"

    /// Whether `name` is this provider's issuer (when one is set); Google names itself with or without the scheme. A
    /// multi-tenant issuer is the token's own tenant's: `tenant` (the ID token's `tid`) in place of the placeholder, or,
    /// without a `tid` (a redirect's `iss`), any tenant ID (letters, digits and `-`).
    func isIssuer(_ name: String?, tenant: String? = nil) -> Bool {
        guard let issuer else { return true }
        guard let placeholder = issuer.range(of: Self.tenantPlaceholder) else {
            return name == issuer || (issuer == "https://accounts.google.com" && name == "accounts.google.com")
        }
        let (prefix, suffix) = (issuer[..<placeholder.lowerBound], issuer[placeholder.upperBound...])
        guard let name, name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return false }
        let named = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard named.count <= 64, named.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == "-" || ("a"..."z").contains($0) }) else {
            return false
        }
        return tenant.map { $0 == String(named) } ?? true
    }

    /// Refuses endpoints that would send the code or the client secret in clear over a network.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration``.
    func checkEndpoints() throws(AuthError) {
        try Self.checkEndpoints([("authorization", authorizationEndpoint), ("token", tokenEndpoint)], of: providerID)
    }

    /// Refuses any of `endpoints` (each with its name) that is not `https`, or `http` on a loopback host (for tests).
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration``, naming `providerID` and the endpoint.
    static func checkEndpoints(_ endpoints: [(name: String, url: URL)], of providerID: String) throws(AuthError) {
        for (name, url) in endpoints {
            let scheme = url.scheme?.lowercased()
            guard scheme == "https" || (scheme == "http" && url.hasLoopbackHost), url.host?.isEmpty == false else {
                throw AuthError(
                    .invalidConfiguration,
                    "The \(providerID) \(name) endpoint \(url.absoluteString) is not an https URL; give the provider's https endpoint "
                        + "(plain http is taken only on a loopback host, for tests).")
            }
        }
    }
}
