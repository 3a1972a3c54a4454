import Foundation
import Synchronization

/// Any OAuth 2 or OpenID Connect provider, as Firebase's `OAuthProvider`: the provider's credentials made from tokens
/// the app got itself (the static methods), and, made with a provider ID, the sign-in Firebase begins under the
/// project's own registration with the provider (``credential(with:)``, ``Auth/signIn(with:uiDelegate:)``).
///
/// Where Firebase's Apple SDK shows the provider's page in a web view on the project's auth domain, this one opens it
/// in the user's browser and takes the provider's answer at a loopback address (`http://localhost:PORT/`): the
/// Firebase project's own provider (`microsoft.com`, `yahoo.com`), so the person is the same Firebase user as in the
/// project's web app. The provider's registration needs `http://localhost` among its redirect URIs (see
/// <doc:DesktopSignIn>).
public final class OAuthProvider: FederatedAuthProvider, @unchecked Sendable {
    /// The provider ID of this generic provider, as Firebase's `OAuthProvider.id`.
    public static let id = "OAuth"

    /// The provider ID this provider signs in with (`microsoft.com`, `yahoo.com`, an `oidc.` provider).
    public let providerID: String

    /// The ``Auth`` whose project begins the sign-in.
    let auth: Auth

    private struct Settings {
        var scopes: [String]? = []
        var customParameters: [String: String]? = [:]
        var browser = DesktopBrowser.system
        var redirectPort: UInt16 = 0
        var timeout = Duration.seconds(300)
        var sessionID: String?
    }

    /// `@unchecked Sendable`: the settings are kept under this lock.
    private let settings = Mutex(Settings())

    /// More OAuth scopes to ask the provider for (Microsoft's `Mail.Read`, …), as Firebase's `scopes`.
    public var scopes: [String]? {
        get { settings.withLock { $0.scopes } }
        set { settings.withLock { $0.scopes = newValue } }
    }

    /// The provider's own parameters, as Firebase's `customParameters`: Microsoft's `tenant`, `prompt`, `login_hint`.
    /// Firebase sets `client_id`, `response_type`, `scope`, `redirect_uri` and `state` itself.
    public var customParameters: [String: String]? {
        get { settings.withLock { $0.customParameters } }
        set { settings.withLock { $0.customParameters = newValue } }
    }

    /// How the provider's page is shown: ``DesktopBrowser/system`` (the user's browser) by default; with
    /// ``DesktopBrowser/none`` the app shows the URL ``credential(with:announcing:)`` announces. KeyringAuth's own.
    public var browser: DesktopBrowser {
        get { settings.withLock { $0.browser } }
        set { settings.withLock { $0.browser = newValue } }
    }

    /// The loopback port the browser comes back to; 0 (the default) lets the system pick a free one. KeyringAuth's own.
    public var redirectPort: UInt16 {
        get { settings.withLock { $0.redirectPort } }
        set { settings.withLock { $0.redirectPort = newValue } }
    }

    /// How long to wait for the person to finish in the browser (five minutes by default). KeyringAuth's own.
    public var timeout: Duration {
        get { settings.withLock { $0.timeout } }
        set { settings.withLock { $0.timeout = newValue } }
    }

    /// The session `accounts:createAuthUri` binds the sign-in to, when the app keeps one of its own (Identity Platform
    /// takes the caller's); `nil` (the default) makes a fresh one of 32 random bytes for each sign-in. It never goes in a
    /// URL. KeyringAuth's own.
    public var sessionID: String? {
        get { settings.withLock { $0.sessionID } }
        set { settings.withLock { $0.sessionID = newValue } }
    }

    /// A provider of `providerID` for `auth`'s project.
    public init(providerID: String, auth: Auth = Auth.auth()) {
        self.providerID = providerID
        self.auth = auth
    }

    /// A provider of `providerID` for `auth`'s project.
    public convenience init(providerID: AuthProviderID, auth: Auth = Auth.auth()) {
        self.init(providerID: providerID.rawValue, auth: auth)
    }

    /// A provider of `providerID` for the default ``Auth``.
    public class func provider(providerID: AuthProviderID) -> OAuthProvider {
        OAuthProvider(providerID: providerID.rawValue, auth: Auth.auth())
    }

    /// A provider of `providerID` for `auth`'s project.
    public class func provider(providerID: AuthProviderID, auth: Auth) -> OAuthProvider {
        OAuthProvider(providerID: providerID.rawValue, auth: auth)
    }

    /// Signs the person in to the provider in their browser and gives the credential for ``Auth/signIn(with:)``,
    /// ``User/link(with:)`` or ``User/reauthenticate(with:)``, as Firebase's `credential(with:)`.
    ///
    /// - Parameter uiDelegate: Unused on Linux (there is no view controller to present): pass `nil`.
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` when the person declined, the time passed or the
    ///   task was cancelled; ``AuthErrorCode/operationNotAllowed`` when the provider is not enabled in the project;
    ///   ``AuthErrorCode/invalidProviderID``; ``AuthErrorCode/invalidConfiguration``; ``AuthErrorCode/networkError``.
    public func credential(with uiDelegate: AuthUIDelegate?) async throws -> AuthCredential {
        try await credential(with: uiDelegate, announcing: { _ in })
    }

    /// ``credential(with:)`` that announces the provider's sign-in URL first, as
    /// ``DesktopOAuthFlow/getCredential(announcing:)`` does, so that the app can show it: with ``DesktopBrowser/none``,
    /// or when no browser opens, the person opens it by hand. KeyringAuth's own.
    ///
    /// - Parameters:
    ///   - uiDelegate: Unused on Linux: pass `nil`.
    ///   - announcing: Called with the URL before ``browser`` opens it.
    public func credential(with uiDelegate: AuthUIDelegate?, announcing: @Sendable (URL) -> Void) async throws -> AuthCredential {
        let settings = settings.withLock { $0 }
        var flow = ProviderRedirectFlow(providerID: providerID)
        flow.customParameters = settings.customParameters ?? [:]
        flow.scopes = (settings.scopes ?? []).filter { !$0.isEmpty }
        flow.browser = settings.browser
        flow.port = settings.redirectPort
        flow.timeout = settings.timeout
        flow.sessionID = settings.sessionID
        flow.logger = auth.configuration.logger
        return try await flow.credential(backend: auth.configuration.backend, context: auth.requestContext, announcing: announcing)
    }

    /// ``credential(with:)`` with a completion handler, called on the ``Auth``'s callback queue, as Firebase's
    /// `getCredentialWith(_:completion:)`.
    public func getCredentialWith(_ uiDelegate: AuthUIDelegate?, completion: (@Sendable (AuthCredential?, Error?) -> Void)? = nil) {
        getCredentialWith(uiDelegate, announcing: { _ in }, completion: completion)
    }

    /// ``credential(with:announcing:)`` with a completion handler, called on the ``Auth``'s callback queue.
    /// KeyringAuth's own.
    public func getCredentialWith(
        _ uiDelegate: AuthUIDelegate?, announcing: @escaping @Sendable (URL) -> Void,
        completion: (@Sendable (AuthCredential?, Error?) -> Void)? = nil
    ) {
        auth.complete({ credential, error in completion?(credential, error) }) { () async throws in
            try await self.credential(with: uiDelegate, announcing: announcing)
        }
    }

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
