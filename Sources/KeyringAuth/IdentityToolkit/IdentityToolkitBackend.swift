import Foundation
import SecretKeychain
import Logging
import Synchronization
import SystemSupport

/// The `AuthBackend` that talks to Firebase's Identity Toolkit REST API, or to an emulator of it
/// (`keyring-auth emulator`, or Firebase's own `firebase emulators:start --only auth`).
///
/// Each request has a time limit; a transport failure is ``AuthErrorCode/networkError``, a refusal
/// has the code Firebase gives it, and an answer that cannot be read is ``AuthErrorCode/internalError``.
/// Tokens and passwords are never logged.
package final class IdentityToolkitBackend: AuthBackend {
    package let apiKey: String
    /// The app's Google app ID, sent as `X-Firebase-GMPID` as Firebase's SDKs send it.
    package let appID: String?
    /// How long one request may take, from sending to the last byte of the answer, rounded up to
    /// whole seconds.
    package let requestTimeout: Duration
    private let endpointChoice: Mutex<Result<IdentityToolkitEndpoint, AuthError>>
    /// HTTP through libcurl, loaded at the first request (see ``CurlTransport``).
    let transport: any HTTPTransport
    let logger: Logger

    /// A backend for `endpoint`: `IdentityToolkitEndpoint.production` or an emulator.
    package convenience init(
        apiKey: String, appID: String? = nil, endpoint: IdentityToolkitEndpoint, requestTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "KeyringAuth.IdentityToolkit")
    ) {
        self.init(apiKey: apiKey, appID: appID, endpoint: .success(endpoint), requestTimeout: requestTimeout, logger: logger)
    }

    /// A backend for Firebase, or for the emulator named by `FIREBASE_AUTH_EMULATOR_HOST` when it is set.
    ///
    /// A malformed variable does not stop construction: every request then fails with
    /// ``AuthErrorCode/invalidConfiguration`` saying how to fix it, until `useEmulator(host:port:)` is called.
    package convenience init(
        apiKey: String, appID: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        requestTimeout: Duration = .seconds(30), logger: Logger = Logger(label: "KeyringAuth.IdentityToolkit")
    ) {
        let endpoint = Result { () throws(AuthError) in try IdentityToolkitEndpoint.fromEnvironment(environment) }
        self.init(apiKey: apiKey, appID: appID, endpoint: endpoint, requestTimeout: requestTimeout, logger: logger)
    }

    private init(
        apiKey: String, appID: String?, endpoint: Result<IdentityToolkitEndpoint, AuthError>, requestTimeout: Duration, logger: Logger
    ) {
        self.apiKey = apiKey
        self.appID = appID
        self.requestTimeout = max(.seconds(1), .seconds(requestTimeout.inSeconds.rounded(.up)))
        self.endpointChoice = Mutex(endpoint)
        self.logger = logger
        self.transport = CurlTransport()
    }

    /// Where requests go now.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` when the emulator variable was malformed.
    package func endpoint() throws(AuthError) -> IdentityToolkitEndpoint {
        try endpointChoice.withLock { (choice) throws(AuthError) in try choice.get() }
    }

    /// Sends every later request to an emulator at `host:port`.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` if the address is not usable;
    ///   the endpoint is then unchanged.
    package func useEmulator(host: String, port: Int) throws(AuthError) {
        let endpoint = try IdentityToolkitEndpoint.emulator(host: host, port: port)
        endpointChoice.withLock { $0 = .success(endpoint) }
    }

    /// Sends every later request to an emulator at `host:port`, or, if the address is not usable, fails
    /// every later request with the reason (``AuthErrorCode/invalidConfiguration``), as Firebase's
    /// `useEmulator(withHost:port:)`, which does not throw, sends nothing anywhere else.
    func useEmulatorOrFailRequests(host: String, port: Int) {
        let endpoint = Result { () throws(AuthError) in try IdentityToolkitEndpoint.emulator(host: host, port: port) }
        endpointChoice.withLock { $0 = endpoint }
    }

    // MARK: AuthBackend

    package func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post("signUp", json: ["returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn(isNewUser: true)
    }

    package func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signUp", json: ["email": email, "password": password, "returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn(isNewUser: true)
    }

    package func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signInWithPassword", json: ["email": email, "password": password, "returnSecureToken": true], tenant: true,
            context: context)
        return try reply.signIn(isNewUser: false)
    }

    package func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        // requestUri: where the provider would have redirected; Firebase's SDKs send http://localhost for
        // credentials the app obtained itself. returnIdpCredential: refusals that concern the credential come
        // back with HTTP 200 and the provider's tokens, as Firebase's SDKs ask.
        // A provider's answer to a sign-in Firebase began (createAuthUri) goes as the URL the browser came back to,
        // with its session.
        let answer = credential.providerAnswer
        let reply: IdpSignInReply = try await post(
            "signInWithIdp",
            json: [
                "postBody": answer == nil ? credential.postBody : nil, "requestUri": answer?.requestURI ?? "http://localhost",
                "sessionId": answer?.sessionID, "returnSecureToken": true, "returnIdpCredential": true, "idToken": idToken,
                "autoCreate": creatingAccount ? nil : false,
            ], tenant: true, context: context)
        return try reply.signIn(requestedProvider: credential.provider)
    }

    package func signIn(customToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: CustomTokenReply = try await post(
            "signInWithCustomToken", json: ["token": customToken, "returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn
    }

    package func link(
        idToken: String, email: String, password: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signUp", json: ["idToken": idToken, "email": email, "password": password, "returnSecureToken": true], tenant: true,
            context: context)
        return try reply.signIn(isNewUser: false)
    }

    package func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount {
        let reply: LookupReply = try await post("lookup", json: ["idToken": idToken], tenant: false, context: context)
        guard let user = reply.users?.first else {
            throw AuthError(.userNotFound, "The identity service has no account for this user; sign in again.")
        }
        return user.account
    }

    package func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
        var body: [String: (any Sendable)?] = [
            "idToken": idToken, "displayName": changes.displayName, "photoUrl": changes.photoURL?.absoluteString,
            "email": changes.email, "password": changes.password, "returnSecureToken": true,
        ]
        let deleted = changes.deletedAttributes.map(\.serverName).sorted()
        if !deleted.isEmpty { body["deleteAttribute"] = deleted }
        if !changes.deletedProviders.isEmpty { body["deleteProvider"] = changes.deletedProviders.sorted() }
        let reply: UpdateReply = try await post("update", json: body, tenant: true, context: context)
        return try reply.tokens
    }

    package func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) {
        let _: DeleteReply = try await post("delete", json: ["idToken": idToken], tenant: false, context: context)
    }

    package func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        let url = try endpoint().tokenURL(apiKey: apiKey)
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "grant_type", value: "refresh_token"),
            URLQueryItem(name: "refresh_token", value: refreshToken),
        ]
        // URLComponents leaves "+" as is in a query; a form body must encode it.
        let body = Data((form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B").utf8)
        let reply: SecureTokenReply = try await send(
            url, operation: "token", contentType: "application/x-www-form-urlencoded", body: body, context: context)
        return try reply.tokens
    }
}
