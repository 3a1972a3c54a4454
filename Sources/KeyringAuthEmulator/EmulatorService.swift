import Foundation
import Synchronization

/// The emulator's operations, apart from any server: a request in, an answer out, accounts in memory.
/// Every failure is an answer in the real service's error shape; nothing here traps on input.
final class EmulatorService: Sendable {
    struct State {
        var accounts: [String: EmulatorAccount] = [:]
        /// `tenant|email` → uid.
        var uidsByEmail: [String: String] = [:]
        /// `tenant|provider|rawId` → uid.
        var uidsByIdentity: [String: String] = [:]
        /// `tenant|phoneNumber` → uid.
        var uidsByPhone: [String: String] = [:]
        /// The tenants, by ID: made by the Admin API, or on first use of their ID, as Firebase's emulator does.
        var tenants: [String: EmulatorTenant] = [:]
        /// The last ``EmulatorService/maximumReceivedRequests`` requests, oldest first.
        var received: [AuthEmulator.ReceivedRequest] = []
        /// Email action codes not yet used, oldest first (at most ``EmulatorService/maximumOutOfBandCodes``).
        var oobCodes: [OutOfBandRecord] = []
        /// TOTP enrollments begun, by `sessionInfo`; first factors passed awaiting a second, by `mfaPendingCredential`.
        var pendingEnrollments: [String: PendingEnrollment] = [:]
        var pendingSignIns: [String: PendingSecondFactor] = [:]
        var settings: AuthEmulator.Settings
        /// The project config's `blockingFunctions.forwardInboundCredentials`, kept and listed (no function is called).
        var forwardInboundCredentials: [String: Bool] = [:]
    }

    let projectID: String
    let tokenLifetime: Int64
    let maximumAccounts: Int
    let clock: @Sendable () -> Date
    let state: Mutex<State>
    /// How long an email action code lasts, in seconds.
    let oobCodeLifetime: Int64
    /// Told of each email action code as it is made.
    let oobCodeHandler: (@Sendable (AuthEmulator.OutOfBandCode) -> Void)?

    init(configuration: AuthEmulator.Configuration, clock: @escaping @Sendable () -> Date = Date.init) {
        projectID = configuration.projectID
        tokenLifetime = min(max(1, configuration.tokenLifetime.components.seconds), Int64(AuthEmulator.maximumTokenLifetimeSeconds))
        maximumAccounts = configuration.maximumAccounts
        self.clock = clock
        oobCodeLifetime = max(1, configuration.oobCodeLifetime.components.seconds)
        oobCodeHandler = configuration.onOutOfBandCode
        state = Mutex(State(settings: configuration.settings))
    }

    // MARK: Routing

    static let identityToolkit = "/identitytoolkit.googleapis.com/v1/"
    private static let secureToken = "/securetoken.googleapis.com/v1/token"

    func handle(_ request: EmulatorRequest) -> EmulatorResponse {
        do throws(EmulatorFailure) {
            return try route(request)
        } catch {
            return error.response(secureTokenShape: request.path == Self.secureToken)
        }
    }

    private func route(_ request: EmulatorRequest) throws(EmulatorFailure) -> EmulatorResponse {
        switch (request.method, request.path) {
        case ("GET", "/"):
            return .json(["authEmulator": ["ready": true, "projectId": projectID]])
        case ("GET", "/emulator/action"):
            return actionPage(request.query)
        case (_, let path) where path.hasPrefix(Self.legacyRelyingParty):
            guard let rewritten = try v1Request(forLegacy: request) else { throw EmulatorFailure.notFound(request) }
            return try route(rewritten)
        case (_, let path) where path.hasPrefix(Self.emulatorProjects):
            return try routeEmulatorAPI(request, path.dropFirst(Self.emulatorProjects.count))
        case (_, let path) where path.hasPrefix(Self.identityToolkit + "projects/"):
            return try routeAdminAccounts(request, path.dropFirst(Self.identityToolkit.count + "projects/".count))
        case (_, let path) where path.hasPrefix(Self.identityToolkitV2 + "projects/"):
            return try routeAdminProject(request, path.dropFirst(Self.identityToolkitV2.count + "projects/".count))
        case ("POST", Self.secureToken):
            try requireAPIKey(request)
            let fields = try request.fields()
            receive("token", fields, request)
            return .json(try refresh(fields))
        case ("POST", let path) where path.hasPrefix(Self.identityToolkit + "accounts:"):
            let caller = try caller(of: request)
            let fields = try request.fields()
            receive(String(path.dropFirst(Self.identityToolkit.count)), fields, request)
            if caller != .admin, fields.has("targetProjectId") {
                throw EmulatorFailure("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            }
            let operation = path.dropFirst(Self.identityToolkit.count + "accounts:".count)
            // The Admin SDKs' calls without a project in the path.
            if caller == .admin, Self.adminOperations.contains(String(operation)) {
                return try adminOperation(String(operation), fields, request, tenant: try tenantScope(path: nil, fields))
            }
            // A tenant named in the body is checked before anything of the request, as firebase-tools checks it.
            let tenant = try clientTenant(fields)
            switch operation {
            case "createAuthUri": return .json(try createAuthUri(fields, tenant: tenant?.tenantId))
            case "signUp": return .json(try signUp(fields, tenantSettings: tenant))
            case "signInWithPassword":
                try tenant?.require(\.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
                return .json(try signIn(fields))
            case "signInWithIdp": return .json(try signInWithIdp(fields))
            case "signInWithCustomToken": return .json(try signInWithCustomToken(fields))
            case "sendOobCode": return .json(try sendOutOfBandCode(fields, request, tenantSettings: tenant))
            case "resetPassword":
                try tenant?.require(\.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
                return .json(try resetPassword(fields))
            case "signInWithEmailLink":
                try tenant?.require(\.enableEmailLinkSignin, "OPERATION_NOT_ALLOWED")
                return .json(try signInWithEmailLink(fields))
            case "lookup": return .json(try lookUp(fields))
            case "update": return .json(try update(fields, host: request.headers["host"]))
            case "delete": return .json(try delete(fields))
            default: throw EmulatorFailure.notFound(request)
            }
        case ("POST", let path) where path.hasPrefix(Self.identityToolkitV2 + "accounts/"):
            _ = try caller(of: request)
            let fields = try request.fields()
            let operation = path.dropFirst(Self.identityToolkitV2.count + "accounts/".count)
            receive(String(operation), fields, request)
            if let tenant = try clientTenant(fields), operation != "mfaEnrollment:withdraw", !tenant.allowsSecondFactors {
                throw EmulatorFailure(
                    "OPERATION_NOT_ALLOWED : no second factor is enabled for this tenant (mfaConfig: state ENABLED, and PHONE_SMS in enabledProviders or a TOTP providerConfig).")
            }
            return .json(try routeMultiFactor(operation, fields))
        default:
            throw EmulatorFailure.notFound(request)
        }
    }

    static let maximumReceivedRequests = 1000
    /// The project number the emulator gives where production gives the project's: firebase-tools' made-up one.
    static let projectNumber = "12345"

    /// Keeps what a request asked, for ``AuthEmulator/receivedRequests``: its operation, tenant and language.
    func receive(_ operation: String, _ fields: RequestFields, _ request: EmulatorRequest, tenant: String? = nil) {
        let received = AuthEmulator.ReceivedRequest(
            operation: operation, tenantID: tenant ?? fields.values["tenantId"] as? String,
            languageCode: request.headers["x-firebase-locale"])
        state.withLock { state in
            state.received.append(received)
            if state.received.count > Self.maximumReceivedRequests { state.received.removeFirst() }
        }
    }

    var receivedRequests: [AuthEmulator.ReceivedRequest] { state.withLock { $0.received } }

    private func requireAPIKey(_ request: EmulatorRequest) throws(EmulatorFailure) {
        guard request.apiKey != nil else { throw Self.missingAPIKey }
    }

    static let missingAPIKey = EmulatorFailure("The request is missing a valid API key.", status: 403, grpcStatus: "PERMISSION_DENIED")

    // MARK: Operations

    /// An app's `accounts:signUp`: an anonymous account, an email and password account, or (with `idToken`) an
    /// email and password given to the account signed in. `tenantSettings` is the tenant the body names.
    private func signUp(_ fields: RequestFields, tenantSettings: EmulatorTenant?) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        if fields.has("localId") { throw EmulatorFailure("UNEXPECTED_PARAMETER : User ID") }
        let email = try fields.string("email")
        let password = try fields.string("password")
        let displayName = try fields.string("displayName")
        let tenant = try fields.string("tenantId")
        let idToken = try fields.string("idToken")
        // An email and password, or neither (an anonymous sign-up).
        var credentials: (email: String, password: String)?
        if idToken != nil || email != nil || password != nil {
            guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
            guard let password else { throw EmulatorFailure("MISSING_PASSWORD") }
            credentials = (email, password)
            try tenantSettings?.require(\.allowPasswordSignup, "OPERATION_NOT_ALLOWED")
        } else {
            try tenantSettings?.require(\.enableAnonymousUser, "ADMIN_ONLY_OPERATION")
        }
        if let idToken {
            return try linkPassword(idToken: idToken, email: email, password: password, displayName: displayName, tenant: tenant)
        }
        return try state.withLock { state throws(EmulatorFailure) in
            guard state.accounts.count < maximumAccounts else {
                throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
            }
            let now = clock()
            var account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: tenant)
            if case let (email, password)? = credentials {
                let normalized = try Self.validEmail(email)
                guard state.uidsByEmail[Self.emailKey(normalized, tenant)] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
                try Self.checkStrength(password)
                account.email = normalized
                account.password = password
                account.displayName = displayName
                state.uidsByEmail[Self.emailKey(normalized, tenant)] = account.localId
            } else {
                guard state.settings.allowsAnonymousSignUp else {
                    throw EmulatorFailure("OPERATION_NOT_ALLOWED : Anonymous user sign-in is disabled for this project.")
                }
            }
            account.lastLoginAt = now.milliseconds
            state.accounts[account.localId] = account
            var reply = issueTokens(for: account, provider: account.isAnonymous ? "anonymous" : "password", now: now).signInFields
            reply["kind"] = "identitytoolkit#SignupNewUserResponse"
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            return reply
        }
    }

    private func signIn(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        guard let email = try fields.string("email") else { throw EmulatorFailure("MISSING_EMAIL") }
        let normalized = try Self.validEmail(email)
        guard let password = try fields.string("password"), !password.isEmpty else { throw EmulatorFailure("MISSING_PASSWORD") }
        let tenant = try fields.string("tenantId")
        return try state.withLock { state throws(EmulatorFailure) in
            let privacy = state.settings.emailEnumerationProtection
            guard let uid = state.uidsByEmail[Self.emailKey(normalized, tenant)], var account = state.accounts[uid] else {
                throw EmulatorFailure(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
            }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard account.password == password else {
                throw EmulatorFailure(privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
            }
            let now = clock()
            account.lastLoginAt = now.milliseconds
            state.accounts[uid] = account
            var reply = firstFactorFields(for: account, provider: "password", now: now, in: &state)
            reply["kind"] = "identitytoolkit#VerifyPasswordResponse"
            reply["registered"] = true
            reply["email"] = account.email
            reply["displayName"] = account.displayName ?? ""
            return reply
        }
    }

    private func lookUp(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            let account = try verify(token, in: state)
            return ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [account.lookupFields]]
        }
    }

    private func update(_ fields: RequestFields, host: String?) throws(EmulatorFailure) -> [String: Any] {
        if let oobCode = try fields.string("oobCode") { return try applyOutOfBandCode(oobCode, tenant: try fields.string("tenantId")) }
        _ = try fields.bool("returnSecureToken")
        let token = try fields.string("idToken")
        let email = try fields.string("email")
        let password = try fields.string("password")
        let displayName = try fields.string("displayName")
        let photoUrl = try fields.string("photoUrl")
        let deleted = try fields.strings("deleteAttribute")
        if let unknown = deleted.first(where: { !["DISPLAY_NAME", "PHOTO_URL"].contains($0) }) {
            throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'delete_attribute' (\(unknown))")
        }
        let deletedProviders = try fields.strings("deleteProvider")
        let link = try fields.object("linkProviderUserInfo").map { (info) throws(EmulatorFailure) in try Self.identity(linking: info) }
        // Any value: as firebase-tools takes it from an app, `validSince` ends the sessions begun before now.
        let endsSessions = try fields.integer("validSince") != nil
        if let password { try Self.checkStrength(password) }
        let tenant = try fields.string("tenantId")
        var recovery: AuthEmulator.OutOfBandCode?
        defer { if let recovery { oobCodeHandler?(recovery) } }
        return try state.withLock { state throws(EmulatorFailure) in
            let verified = try verifySession(token, in: state)
            var account = verified.account
            // A new password makes the session a password one, as firebase-tools issues it (an anonymous user's too).
            let provider = password != nil ? "password" : verified.provider
            guard tenant == nil || tenant == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            if let link, let owner = state.uidsByIdentity[Self.identityKey(link.providerId, link.rawId, account.tenantId)],
                owner != account.localId
            {
                throw EmulatorFailure("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            let now = clock()
            var revokes = endsSessions
            let previousEmail = account.email
            let emailChanged = try email.map { (email) throws(EmulatorFailure) in
                try Self.changeEmail(of: &account, to: try Self.validEmail(email), in: &state)
            } ?? false
            if emailChanged {
                revokes = true
                // Not an anonymous session's first address: the change can be undone by the first address's owner.
                if verified.provider != "anonymous" {
                    if account.initialEmail == nil { account.initialEmail = previousEmail }
                    recovery = makeRecoveryCode(for: account, host: host, in: &state)
                }
            }
            if let password {
                account.password = password
                account.importedPasswordHash = nil
                revokes = true
            }
            if let displayName { account.displayName = displayName }
            if let photoUrl { account.photoUrl = photoUrl }
            if deleted.contains("DISPLAY_NAME") { account.displayName = nil }
            if deleted.contains("PHOTO_URL") { account.photoUrl = nil }
            for provider in deletedProviders { Self.removeProvider(provider, from: &account, in: &state) }
            if let link { Self.link(link, to: &account, in: &state) }
            if revokes {
                account.validSince = now.seconds
                account.tokenGeneration += 1
            }
            state.accounts[account.localId] = account
            var reply: [String: Any] = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.localId,
                "emailVerified": account.emailVerified, "providerUserInfo": account.providerUserInfoFields,
            ]
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            reply["photoUrl"] = account.photoUrl
            if revokes {
                reply.merge(issueTokens(for: account, provider: provider, now: now).signInFields) { _, new in new }
            }
            return reply
        }
    }

    private func delete(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            let account = try verify(token, in: state)
            Self.remove(account, from: &state)
            return ["kind": "identitytoolkit#DeleteAccountResponse"]
        }
    }

    private func refresh(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        // The real service takes snake case; Firebase's Apple SDK sends camel case.
        let grant: String? = if let snake = try fields.string("grant_type") { snake } else { try fields.string("grantType") }
        guard let grant else {
            throw EmulatorFailure("MISSING_GRANT_TYPE")
        }
        guard grant == "refresh_token" else { throw EmulatorFailure("INVALID_GRANT_TYPE") }
        let token: String? = if let snake = try fields.string("refresh_token") { snake } else { try fields.string("refreshToken") }
        guard let token, !token.isEmpty else {
            throw EmulatorFailure("MISSING_REFRESH_TOKEN")
        }
        return try state.withLock { state throws(EmulatorFailure) in
            guard let parsed = RefreshToken(token), parsed.projectID == projectID else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard let account = state.accounts[parsed.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
            guard parsed.tenantID == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            guard parsed.secret == account.refreshSecret else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard parsed.generation == account.tokenGeneration else { throw EmulatorFailure("TOKEN_EXPIRED") }
            let issued = issueTokens(for: account, provider: parsed.provider, extraClaims: parsed.claims, now: clock())
            return [
                "id_token": issued.idToken, "access_token": issued.idToken, "refresh_token": issued.refreshToken,
                "expires_in": issued.expiresIn, "token_type": "Bearer", "user_id": account.localId,
                // Production's project number here; firebase-tools' emulator answers with this made-up one.
                "project_id": Self.projectNumber,
            ]
        }
    }

    // MARK: Tokens

    /// Tokens just issued for an account.
    struct IssuedTokens {
        var uid: String
        var idToken: String
        var refreshToken: String
        /// Seconds, as a string like the real service's.
        var expiresIn: String

        /// The fields sign-up, sign-in and a credential change answer with.
        var signInFields: [String: Any] {
            ["localId": uid, "idToken": idToken, "refreshToken": refreshToken, "expiresIn": expiresIn]
        }
    }

    /// Tokens for a session of `account` signed in by `provider`; `extraClaims` (a JSON object as text, from a
    /// custom token) go in every ID token of the session, after the account's own custom claims;
    /// `signInAttributes` (a SAML assertion's, as JSON text) in the first ID token only, as in firebase-tools.
    func issueTokens(
        for account: EmulatorAccount, provider: String, extraClaims: String? = nil, signInAttributes: String? = nil, now: Date
    ) -> IssuedTokens {
        let issuedAt = now.seconds
        let idToken = UnsignedIDToken(
            projectID: projectID, uid: account.localId, issuedAt: issuedAt, expiresAt: issuedAt + tokenLifetime,
            authTime: (account.lastLoginAt ?? now.milliseconds) / 1000, signInProvider: provider, email: account.email,
            emailVerified: account.emailVerified, tenantID: account.tenantId, identities: account.identityClaims,
            customClaims: [account.customAttributes, extraClaims].compactMap { $0 }, name: account.displayName,
            picture: account.photoUrl, phoneNumber: account.phoneNumber, signInAttributes: signInAttributes)
        let refreshToken = RefreshToken(
            uid: account.localId, generation: account.tokenGeneration, secret: account.refreshSecret, provider: provider,
            claims: extraClaims, projectID: projectID, tenantID: account.tenantId)
        return IssuedTokens(
            uid: account.localId, idToken: idToken.encoded, refreshToken: refreshToken.encoded, expiresIn: String(tokenLifetime))
    }

    /// The account an ID token belongs to, if the token is still good.
    func verify(_ token: String?, in state: State) throws(EmulatorFailure) -> EmulatorAccount {
        try verifySession(token, in: state).account
    }

    /// The account an ID token belongs to and the sign-in method of its session.
    func verifySession(_ token: String?, in state: State) throws(EmulatorFailure) -> (account: EmulatorAccount, provider: String) {
        guard let token, !token.isEmpty else { throw EmulatorFailure("MISSING_ID_TOKEN") }
        guard let claims = UnsignedIDToken(decoding: token, projectID: projectID) else { throw EmulatorFailure("INVALID_ID_TOKEN") }
        guard let account = state.accounts[claims.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
        guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
        guard claims.issuedAt >= account.validSince, claims.expiresAt > clock().seconds else { throw EmulatorFailure("TOKEN_EXPIRED") }
        return (account, claims.signInProvider)
    }

    // MARK: Rules

    static func validEmail(_ email: String) throws(EmulatorFailure) -> String {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, email.utf8.count <= 320,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw EmulatorFailure("INVALID_EMAIL") }
        return email.lowercased()
    }

    static func checkStrength(_ password: String) throws(EmulatorFailure) {
        guard password.count >= 6 else { throw EmulatorFailure("WEAK_PASSWORD : Password should be at least 6 characters") }
    }

    static func emailKey(_ email: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(email)" }

    static func identityKey(_ provider: String, _ rawId: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(provider)|\(rawId)" }

    static func phoneKey(_ phoneNumber: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(phoneNumber)" }

    /// Gives `account` the address `normalized` (a valid, lower-cased one), unverified, and indexes it; `false`
    /// when it already has it.
    static func changeEmail(of account: inout EmulatorAccount, to normalized: String, in state: inout State) throws(EmulatorFailure) -> Bool {
        guard normalized != account.email else { return false }
        let key = emailKey(normalized, account.tenantId)
        guard state.uidsByEmail[key] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
        if let old = account.email { state.uidsByEmail[emailKey(old, account.tenantId)] = nil }
        state.uidsByEmail[key] = account.localId
        account.email = normalized
        account.emailVerified = false
        return true
    }

    /// Unlinks a sign-in method (`deleteProvider`): `password` takes the address and password with it, `phone`
    /// the phone number; an identity provider's ID its identity.
    static func removeProvider(_ provider: String, from account: inout EmulatorAccount, in state: inout State) {
        switch provider {
        case "password":
            if let old = account.email { state.uidsByEmail[emailKey(old, account.tenantId)] = nil }
            account.email = nil
            account.password = nil
            account.importedPasswordHash = nil
            account.emailVerified = false
            account.emailLinkSignIn = false
        case "phone":
            if let old = account.phoneNumber { state.uidsByPhone[phoneKey(old, account.tenantId)] = nil }
            account.phoneNumber = nil
        default:
            for identity in account.identities where identity.providerId == provider {
                state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = nil
            }
            account.identities.removeAll { $0.providerId == provider }
        }
    }

    static func remove(_ account: EmulatorAccount, from state: inout State) {
        state.accounts[account.localId] = nil
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = nil }
        if let phone = account.phoneNumber { state.uidsByPhone[phoneKey(phone, account.tenantId)] = nil }
        for identity in account.identities {
            state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = nil
        }
    }

    /// Indexes `account` (its email address and identities) and stores it.
    static func store(_ account: EmulatorAccount, in state: inout State) {
        state.accounts[account.localId] = account
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = account.localId }
        if let phone = account.phoneNumber { state.uidsByPhone[phoneKey(phone, account.tenantId)] = account.localId }
        for identity in account.identities {
            state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = account.localId
        }
    }

    // MARK: Administration

    var settings: AuthEmulator.Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    var accounts: [EmulatorAccount] {
        state.withLock { $0.accounts.values.sorted { ($0.createdAt, $0.localId) < ($1.createdAt, $1.localId) } }
    }

    func removeAllAccounts() {
        state.withLock { $0.accounts = [:]; $0.uidsByEmail = [:]; $0.uidsByIdentity = [:]; $0.uidsByPhone = [:]; $0.oobCodes = [] }
    }

    /// Changes one account; `false` when there is no such account.
    func modifyAccount(_ uid: String, _ change: (inout EmulatorAccount, Int64) -> Void) -> Bool {
        state.withLock { state in
            guard var account = state.accounts[uid] else { return false }
            change(&account, clock().seconds)
            state.accounts[uid] = account
            return true
        }
    }

    /// Adds accounts, replacing those with the same uid; fails as a whole on a duplicate email.
    func insert(_ imported: [EmulatorAccount]) throws(AuthEmulatorError) {
        try state.withLock { state throws(AuthEmulatorError) in
            var next = state
            for account in imported {
                if let old = next.accounts[account.localId] { Self.remove(old, from: &next) }
                if let email = account.email {
                    let key = Self.emailKey(email, account.tenantId)
                    guard next.uidsByEmail[key] == nil else {
                        throw .invalidImport("two accounts use the email address \(email)")
                    }
                }
                if let phone = account.phoneNumber, next.uidsByPhone[Self.phoneKey(phone, account.tenantId)] != nil {
                    throw .invalidImport("two accounts use the phone number \(phone)")
                }
                for identity in account.identities {
                    guard next.uidsByIdentity[Self.identityKey(identity.providerId, identity.rawId, account.tenantId)] == nil else {
                        throw .invalidImport("two accounts use the \(identity.providerId) identity \(identity.rawId)")
                    }
                }
                Self.store(account, in: &next)
            }
            guard next.accounts.count <= maximumAccounts else {
                throw .invalidImport("it would hold more than \(maximumAccounts) accounts")
            }
            state = next
        }
    }
}

/// The emulator's refresh tokens, in firebase-tools' form: base64 of a JSON record marked
/// `_AuthEmulatorRefreshToken`, with the uid (`localId`), the session's sign-in method (`provider`), the
/// claims of the custom token it began with (`extraClaims`, so that refreshed ID tokens carry them too), the
/// project and the tenant. Ours adds the account's token generation and secret, so that an account's sessions
/// all end when its generation is raised (password change, revocation) and a token cannot be made from a uid.
struct RefreshToken {
    var uid: String
    var generation: Int
    var secret: String
    var provider: String
    /// A JSON object as text; `nil` for none.
    var claims: String?
    var projectID: String
    var tenantID: String?

    init(uid: String, generation: Int, secret: String, provider: String, claims: String?, projectID: String, tenantID: String?) {
        self.uid = uid
        self.generation = generation
        self.secret = secret
        self.provider = provider
        self.claims = claims
        self.projectID = projectID
        self.tenantID = tenantID
    }

    /// Reads a token this emulator issued; `nil` when it is not one.
    init?(_ token: String) {
        guard token.utf8.count <= 16_384, let data = Data(base64Encoded: Self.padded(token)),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            record["_AuthEmulatorRefreshToken"] is String,
            let uid = record["localId"] as? String, let provider = record["provider"] as? String,
            let projectID = record["projectId"] as? String,
            let generation = (record["generation"] as? NSNumber)?.intValue, let secret = record["secret"] as? String
        else { return nil }
        let claims = (record["extraClaims"] as? [String: Any]).flatMap { $0.isEmpty ? nil : $0 }
            .flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
            .map { String(decoding: $0, as: UTF8.self) }
        self.init(
            uid: uid, generation: generation, secret: secret, provider: provider, claims: claims, projectID: projectID,
            tenantID: record["tenantId"] as? String)
    }

    var encoded: String {
        let extraClaims = claims.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } ?? [String: Any]()
        var record: [String: Any] = [
            "_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": uid, "provider": provider, "extraClaims": extraClaims,
            "projectId": projectID, "generation": generation, "secret": secret,
        ]
        record["tenantId"] = tenantID
        // Strings, numbers and a parsed JSON object always serialize.
        return try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]).base64EncodedString()
    }

    /// Base64 as clients may send it back: without its padding.
    private static func padded(_ token: String) -> String {
        token + String(repeating: "=", count: (4 - token.utf8.count % 4) % 4)
    }
}

extension Date {
    var seconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}
