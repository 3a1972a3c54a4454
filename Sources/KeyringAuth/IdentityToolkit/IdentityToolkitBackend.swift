import Foundation
import SecretKeychain
import Logging
import Synchronization

/// The ``AuthBackend`` that talks to Firebase's Identity Toolkit REST API, or to an emulator of it
/// (`keyring-auth emulator`, or Firebase's own `firebase emulators:start --only auth`).
///
/// Each request has a time limit; a transport failure is ``AuthErrorCode/networkError``, a refusal
/// has the code Firebase gives it, and an answer that cannot be read is ``AuthErrorCode/internalError``.
/// Tokens and passwords are never logged.
public final class IdentityToolkitBackend: AuthBackend {
    public let apiKey: String
    /// How long one request may take, from sending to the last byte of the answer, rounded up to
    /// whole seconds.
    public let requestTimeout: Duration
    private let endpointChoice: Mutex<Result<IdentityToolkitEndpoint, AuthError>>
    /// HTTP through libcurl, loaded at the first request (see ``CurlTransport``).
    private let transport: any HTTPTransport
    private let logger: Logger

    /// A backend for `endpoint`: ``IdentityToolkitEndpoint/production`` or an emulator.
    public convenience init(
        apiKey: String, endpoint: IdentityToolkitEndpoint, requestTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "KeyringAuth.IdentityToolkit")
    ) {
        self.init(apiKey: apiKey, endpoint: .success(endpoint), requestTimeout: requestTimeout, logger: logger)
    }

    /// A backend for Firebase, or for the emulator named by `FIREBASE_AUTH_EMULATOR_HOST` when it is set.
    ///
    /// A malformed variable does not stop construction: every request then fails with
    /// ``AuthErrorCode/invalidConfiguration`` saying how to fix it, until ``useEmulator(host:port:)`` is called.
    public convenience init(
        apiKey: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        requestTimeout: Duration = .seconds(30), logger: Logger = Logger(label: "KeyringAuth.IdentityToolkit")
    ) {
        let endpoint = Result { () throws(AuthError) in try IdentityToolkitEndpoint.fromEnvironment(environment) }
        self.init(apiKey: apiKey, endpoint: endpoint, requestTimeout: requestTimeout, logger: logger)
    }

    private init(
        apiKey: String, endpoint: Result<IdentityToolkitEndpoint, AuthError>, requestTimeout: Duration, logger: Logger
    ) {
        self.apiKey = apiKey
        self.requestTimeout = max(.seconds(1), .seconds(requestTimeout.inSeconds.rounded(.up)))
        self.endpointChoice = Mutex(endpoint)
        self.logger = logger
        self.transport = CurlTransport()
    }

    /// Where requests go now.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` when the emulator variable was malformed.
    public func endpoint() throws(AuthError) -> IdentityToolkitEndpoint {
        try endpointChoice.withLock { (choice) throws(AuthError) in try choice.get() }
    }

    /// Sends every later request to an emulator at `host:port`.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` if the address is not usable;
    ///   the endpoint is then unchanged.
    public func useEmulator(host: String, port: Int) throws(AuthError) {
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

    public func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post("signUp", json: ["returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn(isNewUser: true)
    }

    public func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signUp", json: ["email": email, "password": password, "returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn(isNewUser: true)
    }

    public func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signInWithPassword", json: ["email": email, "password": password, "returnSecureToken": true], tenant: true,
            context: context)
        return try reply.signIn(isNewUser: false)
    }

    public func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        // requestUri: where the provider would have redirected; Firebase's SDKs send http://localhost for
        // credentials the app obtained itself. returnIdpCredential: refusals that concern the credential come
        // back with HTTP 200 and the provider's tokens, as Firebase's SDKs ask.
        let reply: IdpSignInReply = try await post(
            "signInWithIdp",
            json: [
                "postBody": credential.postBody, "requestUri": "http://localhost", "returnSecureToken": true,
                "returnIdpCredential": true, "idToken": idToken, "autoCreate": creatingAccount ? nil : false,
            ], tenant: true, context: context)
        return try reply.signIn(requestedProvider: credential.provider)
    }

    public func signIn(customToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        let reply: CustomTokenReply = try await post(
            "signInWithCustomToken", json: ["token": customToken, "returnSecureToken": true], tenant: true, context: context)
        return try reply.signIn
    }

    public func link(
        idToken: String, email: String, password: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: SignInReply = try await post(
            "signUp", json: ["idToken": idToken, "email": email, "password": password, "returnSecureToken": true], tenant: true,
            context: context)
        return try reply.signIn(isNewUser: false)
    }

    public func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount {
        let reply: LookupReply = try await post("lookup", json: ["idToken": idToken], tenant: false, context: context)
        guard let user = reply.users?.first else {
            throw AuthError(.userNotFound, "The identity service has no account for this user; sign in again.")
        }
        return user.account
    }

    public func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
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

    public func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) {
        let _: DeleteReply = try await post("delete", json: ["idToken": idToken], tenant: false, context: context)
    }

    public func finalizeSecondFactorSignIn(
        pendingCredential: String, enrollmentID: String, oneTimePassword: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: SecondFactorSignInReply = try await postMultiFactor(
            "mfaSignIn:finalize",
            json: [
                "mfaPendingCredential": pendingCredential, "mfaEnrollmentId": enrollmentID,
                "totpVerificationInfo": ["verificationCode": oneTimePassword],
            ], context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaSignIn:finalize")
    }

    public func startTOTPEnrollment(idToken: String, context: AuthRequestContext) async throws(AuthError) -> TOTPSecret {
        let reply: TOTPEnrollmentStartReply = try await postMultiFactor(
            "mfaEnrollment:start", json: ["idToken": idToken, "totpEnrollmentInfo": [String: String]()], context: context)
        let session = reply.totpSessionInfo
        guard session.sharedSecretKey.utf8.count <= 256, session.sessionInfo.utf8.count <= 4096 else {
            throw IdentityToolkitReply.malformed("mfaEnrollment:start", "its secret or session is too long")
        }
        return TOTPSecret(
            secretKey: session.sharedSecretKey, sessionInfo: session.sessionInfo, hashingAlgorithm: session.hashingAlgorithm ?? "SHA1",
            codeLength: Int(clamping: session.verificationCodeLength?.value ?? 6), period: Int(clamping: session.periodSec?.value ?? 30))
    }

    public func finalizeTOTPEnrollment(
        idToken: String, secret: TOTPSecret, oneTimePassword: String, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens {
        var body: [String: any Sendable] = [
            "idToken": idToken, "totpVerificationInfo": ["sessionInfo": secret.sessionInfo, "verificationCode": oneTimePassword],
        ]
        if let displayName { body["displayName"] = displayName }
        let reply: SecondFactorSignInReply = try await postMultiFactor("mfaEnrollment:finalize", json: body, context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaEnrollment:finalize").tokens
    }

    public func withdrawSecondFactor(idToken: String, enrollmentID: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        let reply: SecondFactorSignInReply = try await postMultiFactor(
            "mfaEnrollment:withdraw", json: ["idToken": idToken, "mfaEnrollmentId": enrollmentID], context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaEnrollment:withdraw").tokens
    }

    /// A POST to Identity Toolkit's v2 multi-factor `method`, with the context's tenant.
    private func postMultiFactor<Reply: Decodable>(
        _ method: String, json: [String: any Sendable], context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        var body = json
        if let tenantID = context.tenantID { body["tenantId"] = tenantID }
        let url = try endpoint().multiFactorURL(method, apiKey: apiKey)
        return try await send(
            url, operation: method, contentType: "application/json",
            body: try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), context: context)
    }

    public func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
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

    // MARK: Transport

    /// One `accounts:<method>` call. `tenant`: whether the method takes `tenantId` (sign-up, the sign-ins and
    /// `accounts:update`, as Firebase's SDKs send it); the others name the account by its ID token alone.
    func post<Reply: Decodable>(
        _ method: String, json: [String: (any Sendable)?], tenant: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        let url = try endpoint().accountsURL(method, apiKey: apiKey)
        var present = json.compactMapValues { $0 }
        if tenant, let tenantID = context.tenantID { present["tenantId"] = tenantID }
        // Strings, booleans and string arrays always serialize.
        let body = try! JSONSerialization.data(withJSONObject: present, options: [.sortedKeys])
        return try await send(url, operation: "accounts:\(method)", contentType: "application/json", body: body, context: context)
    }

    private func send<Reply: Decodable>(
        _ url: URL, operation: String, contentType: String, body: Data, context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        let answer: HTTPAnswer
        do {
            var headers = [("Content-Type", contentType), ("Accept", "application/json")]
            if let languageCode = context.languageCode.flatMap(Self.headerSafe) { headers.append(("X-Firebase-Locale", languageCode)) }
            answer = try await transport.post(to: url, headers: headers, body: body, timeout: requestTimeout)
        } catch {
            logger.debug("\(operation) failed in transport", metadata: ["error": "\(error)"])
            throw transportError(error, host: url.host ?? "?")
        }
        logger.debug("\(operation) answered", metadata: ["status": "\(answer.status)", "bytes": "\(answer.body.count)"])
        return try IdentityToolkitReply.decode(Reply.self, status: answer.status, body: answer.body, operation: operation)
    }

    /// A language code as a header value: letters, digits, `-` and `_` only, at most 35 characters (BCP 47's
    /// longest common tags); anything else is not sent, so that no value can split the request's headers.
    static func headerSafe(_ languageCode: String) -> String? {
        let allowed = languageCode.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        return allowed && !languageCode.isEmpty && languageCode.count <= 35 ? languageCode : nil
    }

    private func transportError(_ error: HTTPTransportError, host: String) -> AuthError {
        let target = (try? endpoint())?.description ?? host
        switch error.kind {
        case .timedOut:
            return AuthError(
                .networkError,
                "\(target) did not answer within \(requestTimeout); check the network or that the emulator is running.")
        case .cancelled:
            return AuthError(.networkError, "The request to \(target) was cancelled.")
        case .unavailable:
            return AuthError(.networkError, "Cannot reach \(target): \(error.message).")
        case .cannotConnect, .tls, .tooLarge, .failed:
            return AuthError(
                .networkError,
                "Cannot reach \(target) (\(error.message)); check the network, or, when "
                    + "using an emulator, that it runs at the address \(IdentityToolkitEndpoint.emulatorHostVariable) or "
                    + "useEmulator gave.")
        }
    }
}

/// Turns an answer into a reply or a typed error; kept apart from the transport so literal bodies can be tested.
enum IdentityToolkitReply {
    private static let decoder = JSONDecoder()

    static func decode<Reply: Decodable>(
        _ type: Reply.Type, status: Int, body: Data, operation: String
    ) throws(AuthError) -> Reply {
        guard (200..<300).contains(status) else { throw serverError(status: status, body: body, operation: operation) }
        if let pending = try? decoder.decode(SecondFactorPendingReply.self, from: body), pending.mfaPendingCredential != nil,
            pending.idToken == nil
        {
            guard let challenge = pending.challenge else {
                throw malformed(operation, "it asks for a second factor but lists none usable")
            }
            throw challenge.error
        }
        do {
            return try decoder.decode(Reply.self, from: body)
        } catch let error as DecodingError {
            throw malformed(operation, error.readableDescription)
        } catch {
            throw malformed(operation, "\(error)")
        }
    }

    static func serverError(status: Int, body: Data, operation: String) -> AuthError {
        guard let reply = try? decoder.decode(ServerErrorReply.self, from: body) else {
            if status >= 500 || status == 0 {
                return AuthError(.networkError, "The identity service failed with HTTP \(status) on \(operation); try again later.")
            }
            return malformed(operation, "HTTP \(status) without an error body")
        }
        var error = ServerErrorCode(message: reply.error.message, reasons: reply.reasons).authError
        if error.code == .internalError && status == 429 {
            return AuthError(.tooManyRequests, "Too many requests; wait a while and try again. (\(reply.error.message))")
        }
        if error.code == .internalError { error.serverResponse = body }
        return error
    }

    static func malformed(_ operation: String, _ reason: String) -> AuthError {
        AuthError(
            .internalError,
            "The identity service's answer to \(operation) cannot be read (\(reason)); check that the endpoint is "
                + "Identity Toolkit or its emulator.")
    }
}

extension SignInReply {
    func signIn(isNewUser: Bool) throws(AuthError) -> BackendSignIn {
        BackendSignIn(
            uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
            isNewUser: isNewUser)
    }
}

extension CustomTokenReply {
    /// The answer has no `localId`: the uid is the ID token's `user_id` (`sub`), as Firebase's SDKs read it.
    var signIn: BackendSignIn {
        get throws(AuthError) {
            let tokens = try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
            let uid = try BackendSignIn.claims(of: idToken, operation: "accounts:signInWithCustomToken").uid
            return BackendSignIn(uid: uid, tokens: tokens, isNewUser: isNewUser ?? false)
        }
    }
}

extension BackendSignIn {
    /// The ID token's user and expiry, for answers that give neither `localId` nor `expiresIn`.
    static func claims(of idToken: String, operation: String) throws(AuthError) -> (uid: String, expiry: Date) {
        let claims: IDTokenClaims
        do throws(AuthError) {
            claims = try IDTokenClaims(decoding: idToken)
        } catch {
            throw IdentityToolkitReply.malformed(operation, "its ID token cannot be decoded (\(error.message))")
        }
        guard let uid = claims.uid else { throw IdentityToolkitReply.malformed(operation, "its ID token names no user") }
        guard let expiry = try? claims.date("exp") else { throw IdentityToolkitReply.malformed(operation, "its ID token has no expiry") }
        return (uid, expiry)
    }

    /// A sign-in whose answer is only tokens (`mfaSignIn:finalize`).
    init(signedInWith idToken: String, refreshToken: String, operation: String) throws(AuthError) {
        let (uid, expiry) = try Self.claims(of: idToken, operation: operation)
        self.init(uid: uid, tokens: AuthTokens(idToken: idToken, refreshToken: refreshToken, expirationDate: expiry))
    }
}

extension IdpSignInReply {
    /// The sign-in, or the refusal the answer carries: Identity Toolkit answers some refusals with HTTP 200
    /// when asked to return the provider's credential (`errorMessage`, `needConfirmation`), as Firebase's SDKs read them.
    func signIn(requestedProvider: String) throws(AuthError) -> BackendSignIn {
        let answer = IdentityProviderAnswer(
            providerID: providerId ?? requestedProvider, rawUserInfo: rawUserInfo, username: screenName, idToken: oauthIdToken,
            accessToken: oauthAccessToken, tokenSecret: oauthTokenSecret)
        if let errorMessage {
            var error = ServerErrorCode(message: errorMessage).authError
            if [.credentialAlreadyInUse, .emailAlreadyInUse, .accountExistsWithDifferentCredential].contains(error.code) {
                error.updatedCredential = answer.credential
                error.email = email
            }
            throw error
        }
        if needConfirmation == true {
            throw AuthError(
                .accountExistsWithDifferentCredential,
                "An account already uses \(email ?? "this email address") with another sign-in method"
                    + "\(verifiedProvider.map { " (\($0.joined(separator: ", ")))" } ?? ""); sign in with that method, then link "
                    + "this credential with User.link(with:).",
                updatedCredential: answer.credential, email: email)
        }
        guard let localId, let idToken, let refreshToken, let expiresIn else {
            throw IdentityToolkitReply.malformed("accounts:signInWithIdp", "it has no localId or tokens")
        }
        return BackendSignIn(
            uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
            isNewUser: isNewUser ?? false, identityProvider: answer)
    }
}

extension UpdateReply {
    var tokens: AuthTokens? {
        get throws(AuthError) {
            guard let idToken, let refreshToken, let expiresIn else { return nil }
            return try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
        }
    }
}

extension SecureTokenReply {
    var tokens: AuthTokens {
        get throws(AuthError) {
            guard let token = idToken ?? accessToken else {
                throw IdentityToolkitReply.malformed("token", "no id_token or access_token")
            }
            return try AuthTokens(idToken: token, refreshToken: refreshToken, expiresIn: expiresIn)
        }
    }
}

extension AuthTokens {
    /// Tokens that expire `expiresIn` seconds from now.
    init(idToken: String, refreshToken: String, expiresIn: LenientInt) throws(AuthError) {
        guard !idToken.isEmpty, !refreshToken.isEmpty else {
            throw IdentityToolkitReply.malformed("sign-in", "an empty token")
        }
        guard (0...(366 * 24 * 3600)).contains(expiresIn.value) else {
            throw IdentityToolkitReply.malformed("sign-in", "expiresIn \(expiresIn.value) is out of range")
        }
        self.init(idToken: idToken, refreshToken: refreshToken, expirationDate: Date().addingTimeInterval(Double(expiresIn.value)))
    }
}

