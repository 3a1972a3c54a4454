import Foundation
import Logging
import SystemSupport

/// An identity provider's sign-in begun by Firebase under the project's own registration with the provider
/// (`accounts:createAuthUri` with `providerId`), finished in the user's browser with a loopback redirect: what
/// ``OAuthProvider/credential(with:)`` runs. The app needs no OAuth client of its own, and the person signs in as the
/// same Firebase user as in the project's web app (`microsoft.com`, `yahoo.com`).
///
/// 1. listens on `127.0.0.1` and `::1` for `http://localhost:PORT/` (the loopback form every provider's registration
///    takes with any port);
/// 2. asks Firebase for the provider's authorization URL with that `continueUri`, the custom parameters and scopes, and
///    the app's session or a fresh one (32 random bytes), never in a URL;
/// 3. announces the URL and opens it; the redirect must carry the `state` Firebase put in it (any other request gets a 400 page and the
///    wait goes on);
/// 4. gives the URL the browser came back to and the session as the credential, for `accounts:signInWithIdp`.
package struct ProviderRedirectFlow: Sendable {
    package var providerID: String
    package var customParameters: [String: String] = [:]
    package var scopes: [String] = []
    package var port: UInt16 = 0
    package var timeout: Duration = .seconds(300)
    package var browser: DesktopBrowser = .system
    /// The app's own session, or `nil` for a fresh one.
    package var sessionID: String?
    package var logger = Logger(label: "KeyringAuth.DesktopOAuth")

    package init(providerID: String) {
        self.providerID = providerID
    }

    /// Runs the flow through `backend`, whose `accounts:createAuthUri` begins it.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidProviderID``; ``AuthErrorCode/invalidConfiguration`` for a
    ///   reserved custom parameter; the backend's errors (``AuthErrorCode/operationNotAllowed`` when the provider is not
    ///   enabled); ``AuthErrorCode/webContextCancelled`` when the person declined, the time passed or the task was
    ///   cancelled; ``AuthErrorCode/webSignInUserInteractionFailure`` for another error of the provider;
    ///   ``AuthErrorCode/webContextAlreadyPresented`` when ``port`` is in use.
    /// - Parameter announcing: Called with the authorization URL before ``browser`` opens it.
    package func credential(
        backend: any AuthBackend, context: AuthRequestContext, announcing: @Sendable (URL) -> Void = { _ in }
    ) async throws(AuthError) -> OAuthCredential {
        try OAuthCredential.checkProviderID(providerID)
        if let reserved = customParameters.keys.sorted().first(where: { OAuthParameters.reserved.contains($0.lowercased()) }) {
            throw AuthError(
                .invalidConfiguration,
                "The custom parameter \(String(reflecting: DesktopOAuthFlow.printable(reserved, limit: 64))) is set by Firebase "
                    + "itself; leave it out (the scopes go in scopes).")
        }
        guard timeout > .zero else { throw AuthError(.invalidConfiguration, "The desktop sign-in's time limit must be positive.") }
        if let sessionID {
            guard !sessionID.isEmpty, sessionID.utf8.count <= 256, sessionID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw AuthError(.invalidConfiguration, "The sign-in's session ID must be 1 to 256 printable ASCII characters without spaces.")
            }
        }
        let listener = try LoopbackRedirectListener(port: port, path: "/", host: .localhost)
        defer { listener.close() }
        let start = try await backend.startProviderSignIn(
            ProviderSignInRequest(
                providerID: providerID, continueURI: listener.redirectURI, customParameters: customParameters, scopes: scopes,
                sessionID: sessionID ?? PKCE.base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max) })),
            context: context)
        let (url, state) = try Self.authorization(start.authorizationURL, of: providerID)
        logger.debug("waiting for the \(providerID) redirect", metadata: ["redirect": "\(listener.redirectURI)"])
        announcing(url)
        if let failure = await browser.open(url) {
            logger.notice("the browser was not opened: \(failure); the URL must be opened by hand")
        }
        let callback = try await listener.redirect(state: state, within: timeout, of: providerID)
        do throws(AuthError) {
            try LoopbackRedirectListener.checkRefusal(in: callback, of: providerID)
        } catch {
            LoopbackRedirectListener.reply(callback.connection, status: "400 Bad Request", page: RedirectPage.failed(error.message))
            throw error
        }
        LoopbackRedirectListener.reply(callback.connection, status: "200 OK", page: RedirectPage.signedIn)
        logger.debug("the \(providerID) sign-in came back from the browser")
        return OAuthCredential(
            providerID: providerID, sessionID: start.sessionID, responseURL: "http://localhost:\(listener.port)\(callback.target)")
    }

    /// The authorization URL Firebase answered and the `state` it carries, which the redirect must carry back.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/internalError`` when it is no `https` URL (or `http` on a loopback
    ///   host: the emulator's) or carries no single `state`.
    static func authorization(_ text: String, of providerID: String) throws(AuthError) -> (URL, String) {
        guard text.utf8.count <= 16 * 1024, let url = URL(string: text), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.scheme == "https" || (components.scheme == "http" && url.hasLoopbackHost), url.host?.isEmpty == false
        else {
            throw AuthError(
                .internalError, "The identity service answered no usable \(providerID) sign-in address; try again, or check the provider's setup.")
        }
        let states = (components.queryItems ?? []).filter { $0.name == "state" }.compactMap(\.value)
        guard states.count == 1, let state = states.first, !state.isEmpty, state.utf8.count <= 4096 else {
            throw AuthError(
                .internalError,
                "The identity service's \(providerID) sign-in address carries no state to recognise the browser's answer by; "
                    + "the sign-in was not begun.")
        }
        return (url, state)
    }
}
