import Dispatch
import Foundation
import Logging

/// Signs a user in with Google or another OpenID Connect provider from a desktop app, the way Google's
/// guide for installed apps describes: the user's own browser, a redirect to a loopback address, PKCE.
///
/// KeyringAuth's own API: Firebase's SDKs have no provider sign-in on desktops (the Apple SDK's
/// `OAuthProvider.getCredentialWith` is unavailable on macOS, the C++ SDK's returns "unimplemented").
/// ``getCredential(announcing:)`` gives an ``OAuthCredential`` (the provider's ID token, access token and
/// the raw nonce) for ``Auth/signIn(with:)``, ``User/link(with:)`` or ``User/reauthenticate(with:)``.
///
/// One call:
/// 1. listens on `127.0.0.1` (``port`` 0: a free port) for the redirect `http://127.0.0.1:PORT/` (Microsoft's
///    sign-in: on `127.0.0.1` and `::1` for `http://localhost:PORT/`, the only loopback form whose port Microsoft
///    ignores);
/// 2. makes a PKCE `S256` verifier, a `state` and a nonce (its SHA-256 is sent; Firebase gets the raw one);
/// 3. announces the authorization URL and opens it with ``browser`` (`xdg-open`, or the desktop portal in a
///    sandbox);
/// 4. waits for the redirect within ``timeout`` (cancelling the task ends the wait); a request without this
///    flow's `state` gets a 400 page and the wait goes on (any local process can find the port), and at the
///    first with it, it stops listening, so a second request is refused;
/// 5. exchanges the code at the token endpoint (with the verifier and, if given, the client secret), checks the
///    ID token's nonce, audience and issuer, and leaves the browser on a "you can close this tab" page.
///
/// No code, token or verifier is ever logged. The ID token's signature is not checked here (it comes straight
/// from the token endpoint over TLS, as OpenID Connect allows); Firebase checks it at sign-in.
public struct DesktopOAuthFlow: Sendable {
    /// The provider: ``DesktopOAuthProvider/google`` or any OpenID Connect provider.
    public var provider: DesktopOAuthProvider
    /// The OAuth client ID (for Google, a client of type "Desktop app").
    public var clientID: String
    /// The client secret, for providers that require one of installed apps (Google does; it is not secret
    /// in a desktop app, PKCE protects the code). `nil` sends none.
    public var clientSecret: String?
    /// The loopback port to listen on; 0 (the default) lets the system pick a free one.
    public var port: UInt16 = 0
    /// The redirect URI's path, `/` by default (register `http://127.0.0.1/PATH` with providers that want it).
    public var redirectPath: String = "/"
    /// How long to wait for the user to finish in the browser.
    public var timeout: Duration = .seconds(300)
    /// How long the token request may take.
    public var requestTimeout: Duration = .seconds(30)
    /// How the authorization URL is opened.
    public var browser: DesktopBrowser = .system
    /// More parameters of the authorization request, for example `["prompt": "select_account"]` or a
    /// `login_hint`; they cannot replace the flow's own.
    public var additionalParameters: [String: String] = [:]
    /// Where the flow's steps are logged (never a code or a token).
    public var logger = Logger(label: "KeyringAuth.DesktopOAuth")
    /// Which addresses the token request may connect to.
    package var addresses: ReachableAddresses = .any

    /// A flow for `provider` with an OAuth client.
    ///
    /// - Parameters:
    ///   - provider: The provider, for example ``DesktopOAuthProvider/google``.
    ///   - clientID: The OAuth client ID.
    ///   - clientSecret: The client secret, if the provider requires one.
    public init(provider: DesktopOAuthProvider, clientID: String, clientSecret: String? = nil) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// Runs the flow and returns the provider's credential.
    ///
    /// - Parameter announcing: Called with the authorization URL before the browser is opened, so the app can show
    ///   it (a person can open it by hand when no browser opens).
    /// - Returns: A credential with the ID token, the access token and the raw nonce, for ``Auth/signIn(with:)``.
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` when the user denied access, the time limit
    ///   passed or the task was cancelled; ``AuthErrorCode/webSignInUserInteractionFailure`` for the redirect
    ///   without a code, or with a provider's error; ``AuthErrorCode/invalidClientID`` when the provider refused
    ///   the client; ``AuthErrorCode/invalidCredential`` when the code was refused or the tokens do not fit;
    ///   ``AuthErrorCode/missingOrInvalidNonce``; ``AuthErrorCode/networkError``;
    ///   ``AuthErrorCode/webContextAlreadyPresented`` when ``port`` is in use; ``AuthErrorCode/invalidConfiguration``.
    public func getCredential(announcing: @Sendable (URL) -> Void = { _ in }) async throws(AuthError) -> OAuthCredential {
        try check()
        let secrets = PKCE()
        let listener = try LoopbackRedirectListener(port: port, path: redirectPath, host: provider.loopbackHost)
        defer { listener.close() }
        let url = authorizationURL(redirectURI: listener.redirectURI, secrets: secrets)
        logger.debug("waiting for the \(provider.providerID) redirect", metadata: ["redirect": "\(listener.redirectURI)"])
        announcing(url)
        if let failure = await browser.open(url) {
            logger.notice("the browser was not opened: \(failure); the URL must be opened by hand")
        }
        let callback = try await listener.redirect(state: secrets.state, within: timeout, of: provider.providerID)
        do throws(AuthError) {
            let code = try authorizationCode(from: callback, secrets: secrets)
            let credential = try await exchange(code: code, redirectURI: listener.redirectURI, secrets: secrets)
            LoopbackRedirectListener.reply(callback.connection, status: "200 OK", page: RedirectPage.signedIn)
            logger.debug("signed in to \(provider.providerID) in the browser")
            return credential
        } catch {
            LoopbackRedirectListener.reply(callback.connection, status: "400 Bad Request", page: RedirectPage.failed(error.message))
            throw error
        }
    }

    /// ``getCredential(announcing:)`` with a completion handler, called on `queue`.
    public func getCredential(
        announcing: @escaping @Sendable (URL) -> Void = { _ in }, queue: DispatchQueue = .main,
        completion: @escaping @Sendable (OAuthCredential?, AuthError?) -> Void
    ) {
        Task {
            do throws(AuthError) {
                let credential = try await getCredential(announcing: announcing)
                queue.async { completion(credential, nil) }
            } catch {
                queue.async { completion(nil, error) }
            }
        }
    }

    // MARK: Steps

    private func check() throws(AuthError) {
        guard !clientID.isEmpty, !clientID.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw AuthError(.invalidClientID, "The OAuth client ID is empty or has spaces; give the provider's client ID.")
        }
        try provider.checkEndpoints()
        try OAuthCredential.checkProviderID(provider.providerID)  // before the browser, not after its round trip
        guard redirectPath.hasPrefix("/"), !redirectPath.contains("?"), !redirectPath.contains("#"),
            !redirectPath.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F })
        else {
            throw AuthError(.invalidConfiguration, "The redirect path \(String(reflecting: redirectPath)) is not a URL path; give one such as \"/\".")
        }
        guard timeout > .zero, requestTimeout > .zero else {
            throw AuthError(.invalidConfiguration, "The desktop sign-in's time limits must be positive.")
        }
    }

    /// The authorization request: `response_type=code`, PKCE `S256`, `state`, the hashed nonce.
    func authorizationURL(redirectURI: String, secrets: PKCE) -> URL {
        var fields = additionalParameters
        let own = [
            "response_type": "code", "client_id": clientID, "redirect_uri": redirectURI, "scope": provider.scopes.joined(separator: " "),
            "state": secrets.state, "nonce": secrets.hashedNonce, "code_challenge": secrets.challenge, "code_challenge_method": "S256",
        ]
        fields.merge(own) { _, ours in ours }
        var components = URLComponents(url: provider.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let query = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(OAuthCredential.formEncoded($0.value))" }.joined(separator: "&")
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.filter { !$0.isEmpty }
            .joined(separator: "&")
        return components.url!
    }

    /// The code of a redirect whose `state` is this flow's, else the error it reports.
    func authorizationCode(from callback: LoopbackRedirectListener.Callback, secrets: PKCE) throws(AuthError) -> String {
        guard let state = callback.value("state"), state == secrets.state else {
            throw AuthError(
                .webSignInUserInteractionFailure,
                "The browser came back with \(callback.value("state") == nil ? "no" : "another") state than this sign-in's, so its answer "
                    + "was refused (an old tab, or another page); start the sign-in again.")
        }
        if let issuer = provider.issuer, callback.parameters.keys.contains("iss"), !provider.isIssuer(callback.value("iss")) {
            throw AuthError(.webSignInUserInteractionFailure, "The redirect names another issuer than \(issuer); start the sign-in again.")
        }
        try LoopbackRedirectListener.checkRefusal(in: callback, of: provider.providerID)
        guard let code = callback.value("code"), !code.isEmpty, code.utf8.count <= 4096 else {
            throw AuthError(
                .webSignInUserInteractionFailure, "The browser came back without an authorization code; start the sign-in again.")
        }
        return code
    }

    /// Exchanges the code for tokens at the token endpoint.
    private func exchange(code: String, redirectURI: String, secrets: PKCE) async throws(AuthError) -> OAuthCredential {
        var fields = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", clientID),
            ("code_verifier", secrets.verifier),
        ]
        if let clientSecret, !clientSecret.isEmpty { fields.append(("client_secret", clientSecret)) }
        let body = Data(fields.map { "\($0)=\(OAuthCredential.formEncoded($1))" }.joined(separator: "&").utf8)
        let answer: HTTPAnswer
        do {
            answer = try await CurlTransport(addresses: addresses).post(
                to: provider.tokenEndpoint,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")], body: body,
                timeout: requestTimeout)
        } catch {
            if error.kind == .cancelled {
                throw AuthError(.webContextCancelled, "The \(provider.providerID) sign-in was cancelled while the code was exchanged.")
            }
            if error.kind == .refusedAddress {
                throw AuthError(.invalidConfiguration, "The \(provider.providerID) token endpoint is not reached: \(error.message).")
            }
            throw AuthError(
                .networkError,
                "The \(provider.providerID) token endpoint (\(provider.tokenEndpoint.host ?? "?")) did not answer: \(error.message); "
                    + "check the connection and sign in again.")
        }
        return try TokenAnswer.credential(
            status: answer.status, body: answer.body, provider: provider, clientID: clientID, hashedNonce: secrets.hashedNonce,
            rawNonce: secrets.rawNonce)
    }

    /// Printable ASCII of untrusted text, at most `limit` characters.
    static func printable(_ text: String, limit: Int) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(limit)))
    }
}
