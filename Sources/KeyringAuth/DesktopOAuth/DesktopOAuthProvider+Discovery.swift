import Foundation

extension DesktopOAuthProvider {
    /// The largest discovery document read; real ones are a few kilobytes.
    static let maximumDiscoveryBytes = 256 * 1024

    /// An OpenID Connect provider as its discovery document (`ISSUER/.well-known/openid-configuration`)
    /// describes it: its authorization and token endpoints, checked to belong to `issuer`.
    ///
    /// - Parameters:
    ///   - providerID: The Firebase provider ID set up for it, usually `oidc.<name>`.
    ///   - issuer: The issuer URL (`https`, or `http` on a loopback host for tests), with no query, fragment or user.
    ///   - scopes: The scopes to ask for.
    ///   - requestTimeout: How long the request may take.
    /// - Returns: The provider, with `issuer` as the ID token's required `iss`.
    /// - Throws: ``AuthError``: ``AuthErrorCode/networkError`` when the document cannot be fetched,
    ///   ``AuthErrorCode/invalidConfiguration`` when it is not an OpenID Connect provider's for `issuer`, or the
    ///   provider does not support PKCE's `S256`.
    public static func discover(
        providerID: String, issuer: String, scopes: [String] = ["openid", "email", "profile"], requestTimeout: Duration = .seconds(30)
    ) async throws(AuthError) -> DesktopOAuthProvider {
        try await discover(providerID: providerID, issuer: issuer, scopes: scopes, requestTimeout: requestTimeout, addresses: .any)
    }

    /// ``discover(providerID:issuer:scopes:requestTimeout:)``, connecting only to `addresses`.
    package static func discover(
        providerID: String, issuer: String, scopes: [String] = ["openid", "email", "profile"], requestTimeout: Duration = .seconds(30),
        addresses: ReachableAddresses
    ) async throws(AuthError) -> DesktopOAuthProvider {
        let url = try discoveryURL(of: issuer, providerID: providerID)
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let answer: HTTPAnswer
        do {
            answer = try await CurlTransport(addresses: addresses).get(from: url, headers: [("Accept", "application/json")], timeout: requestTimeout)
        } catch where error.kind == .refusedAddress {
            throw AuthError(.invalidConfiguration, "The OpenID Connect configuration of \(trimmed) is not fetched: \(error.message).")
        } catch {
            throw AuthError(
                .networkError, "The OpenID Connect configuration of \(trimmed) could not be fetched: \(error.message); check the issuer and the connection.")
        }
        return try fromDiscoveryDocument(status: answer.status, body: answer.body, providerID: providerID, issuer: issuer, scopes: scopes)
    }

    /// Where `issuer`'s discovery document is: OpenID Connect Discovery §4 appends `/.well-known/openid-configuration`
    /// to the issuer, an `https` URL (or `http` on a loopback host, for tests) with no query, fragment or user (§3's
    /// rule for an issuer), so that the issuer chooses no other path and sends nothing else.
    static func discoveryURL(of issuer: String, providerID: String) throws(AuthError) -> URL {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard !trimmed.contains("?"), !trimmed.contains("#"), !trimmed.contains("@") else {
            throw AuthError(
                .invalidConfiguration,
                "\(String(reflecting: DesktopOAuthFlow.printable(issuer, limit: 200))) is not an issuer URL: an issuer has no query (?), "
                    + "fragment (#) or user (@); give one such as https://login.example.com.")
        }
        guard let url = URL(string: trimmed + "/.well-known/openid-configuration"), url.host != nil else {
            throw AuthError(
                .invalidConfiguration,
                "\(String(reflecting: DesktopOAuthFlow.printable(issuer, limit: 200))) is not an issuer URL; give one such as https://login.example.com.")
        }
        try DesktopOAuthProvider(providerID: providerID, authorizationEndpoint: url, tokenEndpoint: url).checkEndpoints()
        return url
    }

    /// Whether `issuer` is a multi-tenant endpoint of the templated issuer `named`: `named` with its placeholder
    /// (`{tenantid}`) replaced by `common`, `organizations` or `consumers`.
    static func isTenantAlias(_ issuer: String, of named: String) -> Bool {
        guard named.contains(tenantPlaceholder) else { return false }
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let template = named.hasSuffix("/") ? String(named.dropLast()) : named
        return ["common", "organizations", "consumers"].contains { template.replacingOccurrences(of: tenantPlaceholder, with: $0) == trimmed }
    }

    /// Reads a discovery document (kept apart from the transport so that literal documents can be tested).
    static func fromDiscoveryDocument(
        status: Int, body: Data, providerID: String, issuer: String, scopes: [String]
    ) throws(AuthError) -> DesktopOAuthProvider {
        func refuse(_ why: String) -> AuthError {
            AuthError(.invalidConfiguration, "\(issuer) is not usable for the desktop sign-in: \(why).")
        }
        guard status == 200 else { throw refuse("its /.well-known/openid-configuration answered HTTP \(status)") }
        guard body.count <= maximumDiscoveryBytes,
            let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        else { throw refuse("its /.well-known/openid-configuration is not a JSON object of at most \(maximumDiscoveryBytes) bytes") }
        // OpenID Connect Discovery §4.3: the document's issuer is exactly the one asked for; or, for a multi-tenant
        // endpoint (Microsoft's common, organizations or consumers), the issuer template whose tenant it stands for.
        guard let named = document["issuer"] as? String,
            named == issuer || named + "/" == issuer || named == issuer + "/" || isTenantAlias(issuer, of: named)
        else {
            throw refuse("its configuration names another issuer (\(DesktopOAuthFlow.printable(document["issuer"] as? String ?? "none", limit: 200)))")
        }
        guard let authorization = (document["authorization_endpoint"] as? String).flatMap(URL.init(string:)),
            let token = (document["token_endpoint"] as? String).flatMap(URL.init(string:))
        else { throw refuse("its configuration has no authorization_endpoint or token_endpoint") }
        if let methods = document["code_challenge_methods_supported"] as? [String], !methods.contains("S256") {
            throw refuse("it does not support PKCE's S256 code challenge")
        }
        let provider = DesktopOAuthProvider(
            providerID: providerID, authorizationEndpoint: authorization, tokenEndpoint: token, issuer: named, scopes: scopes)
        try provider.checkEndpoints()
        return provider
    }
}
