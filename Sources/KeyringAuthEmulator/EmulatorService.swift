import Foundation
import Synchronization

/// The emulator's operations, apart from any server: a request in, an answer out, accounts in memory.
/// Every failure is an answer in the real service's error shape; nothing here traps on input.
final class EmulatorService: Sendable {
    private struct State {
        var accounts: [String: EmulatorAccount] = [:]
        /// `tenant|email` → uid.
        var uidsByEmail: [String: String] = [:]
        var settings: AuthEmulator.Settings
    }

    let projectID: String
    private let tokenLifetime: Int64
    private let maximumAccounts: Int
    private let clock: @Sendable () -> Date
    private let state: Mutex<State>

    init(configuration: AuthEmulator.Configuration, clock: @escaping @Sendable () -> Date = Date.init) {
        projectID = configuration.projectID
        tokenLifetime = min(max(1, configuration.tokenLifetime.components.seconds), Int64(AuthEmulator.maximumTokenLifetimeSeconds))
        maximumAccounts = configuration.maximumAccounts
        self.clock = clock
        state = Mutex(State(settings: configuration.settings))
    }

    // MARK: Routing

    private static let identityToolkit = "/identitytoolkit.googleapis.com/v1/"
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
        case ("DELETE", "/emulator/v1/projects/\(projectID)/accounts"):
            removeAllAccounts()
            return .json([:])
        case ("POST", Self.secureToken):
            try requireAPIKey(request)
            return .json(try refresh(request.fields()))
        case ("POST", let path) where path.hasPrefix(Self.identityToolkit + "accounts:"):
            try requireAPIKey(request)
            let fields = try request.fields()
            switch path.dropFirst(Self.identityToolkit.count + "accounts:".count) {
            case "signUp": return .json(try signUp(fields))
            case "signInWithPassword": return .json(try signIn(fields))
            case "lookup": return .json(try lookUp(fields))
            case "update": return .json(try update(fields))
            case "delete": return .json(try delete(fields))
            default: throw EmulatorFailure.notFound(request)
            }
        default:
            throw EmulatorFailure.notFound(request)
        }
    }

    private func requireAPIKey(_ request: EmulatorRequest) throws(EmulatorFailure) {
        guard request.apiKey != nil else {
            throw EmulatorFailure("The request is missing a valid API key.", status: 403, grpcStatus: "PERMISSION_DENIED")
        }
    }

    // MARK: Operations

    private func signUp(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        let email = try fields.string("email")
        let password = try fields.string("password")
        let tenant = try fields.string("tenantId")
        return try state.withLock { state throws(EmulatorFailure) in
            guard state.accounts.count < maximumAccounts else {
                throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
            }
            let now = clock()
            var account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: tenant)
            if email == nil && password == nil {
                guard state.settings.allowsAnonymousSignUp else {
                    throw EmulatorFailure("OPERATION_NOT_ALLOWED : Anonymous user sign-in is disabled for this project.")
                }
            } else {
                guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
                guard let password else { throw EmulatorFailure("MISSING_PASSWORD") }
                let normalized = try Self.validEmail(email)
                guard state.uidsByEmail[Self.emailKey(normalized, tenant)] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
                try Self.checkStrength(password)
                account.email = normalized
                account.password = password
                state.uidsByEmail[Self.emailKey(normalized, tenant)] = account.localId
            }
            account.lastLoginAt = now.milliseconds
            state.accounts[account.localId] = account
            var reply = issueTokens(for: account, now: now).signInFields
            reply["kind"] = "identitytoolkit#SignupNewUserResponse"
            reply["email"] = account.email
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
            var reply = issueTokens(for: account, now: now).signInFields
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

    private func update(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
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
        return try state.withLock { state throws(EmulatorFailure) in
            var account = try verify(token, in: state)
            let now = clock()
            var revokes = false
            if let email {
                let normalized = try Self.validEmail(email)
                if normalized != account.email {
                    let key = Self.emailKey(normalized, account.tenantId)
                    guard state.uidsByEmail[key] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
                    if let old = account.email { state.uidsByEmail[Self.emailKey(old, account.tenantId)] = nil }
                    state.uidsByEmail[key] = account.localId
                    account.email = normalized
                    account.emailVerified = false
                    revokes = true
                }
            }
            if let password {
                try Self.checkStrength(password)
                account.password = password
                revokes = true
            }
            if let displayName { account.displayName = displayName }
            if let photoUrl { account.photoUrl = photoUrl }
            if deleted.contains("DISPLAY_NAME") { account.displayName = nil }
            if deleted.contains("PHOTO_URL") { account.photoUrl = nil }
            if revokes {
                account.validSince = now.seconds
                account.tokenGeneration += 1
            }
            state.accounts[account.localId] = account
            var reply: [String: Any] = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.localId,
                "emailVerified": account.emailVerified, "providerUserInfo": account.providerUserInfo,
            ]
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            reply["photoUrl"] = account.photoUrl
            if revokes { reply.merge(issueTokens(for: account, now: now).signInFields) { _, new in new } }
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
            guard let parsed = RefreshToken(token) else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard let account = state.accounts[parsed.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
            guard parsed.secret == account.refreshSecret else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard parsed.generation == account.tokenGeneration else { throw EmulatorFailure("TOKEN_EXPIRED") }
            let issued = issueTokens(for: account, now: clock())
            return [
                "id_token": issued.idToken, "access_token": issued.idToken, "refresh_token": token,
                "expires_in": issued.expiresIn, "token_type": "Bearer", "user_id": account.localId,
                "project_id": projectID,
            ]
        }
    }

    // MARK: Tokens

    /// Tokens just issued for an account.
    private struct IssuedTokens {
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

    private func issueTokens(for account: EmulatorAccount, now: Date) -> IssuedTokens {
        let issuedAt = now.seconds
        let idToken = UnsignedIDToken(
            projectID: projectID, uid: account.localId, issuedAt: issuedAt, expiresAt: issuedAt + tokenLifetime,
            authTime: (account.lastLoginAt ?? now.milliseconds) / 1000,
            signInProvider: account.isAnonymous ? "anonymous" : "password", email: account.email,
            emailVerified: account.emailVerified, tenantID: account.tenantId)
        let refreshToken = RefreshToken(uid: account.localId, generation: account.tokenGeneration, secret: account.refreshSecret)
        return IssuedTokens(
            uid: account.localId, idToken: idToken.encoded, refreshToken: refreshToken.encoded, expiresIn: String(tokenLifetime))
    }

    /// The account an ID token belongs to, if the token is still good.
    private func verify(_ token: String?, in state: State) throws(EmulatorFailure) -> EmulatorAccount {
        guard let token, !token.isEmpty else { throw EmulatorFailure("MISSING_ID_TOKEN") }
        guard let claims = UnsignedIDToken(decoding: token, projectID: projectID) else { throw EmulatorFailure("INVALID_ID_TOKEN") }
        guard let account = state.accounts[claims.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
        guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
        guard claims.issuedAt >= account.validSince, claims.expiresAt > clock().seconds else { throw EmulatorFailure("TOKEN_EXPIRED") }
        return account
    }

    // MARK: Rules

    private static func validEmail(_ email: String) throws(EmulatorFailure) -> String {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, email.utf8.count <= 320,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw EmulatorFailure("INVALID_EMAIL") }
        return email.lowercased()
    }

    private static func checkStrength(_ password: String) throws(EmulatorFailure) {
        guard password.count >= 6 else { throw EmulatorFailure("WEAK_PASSWORD : Password should be at least 6 characters") }
    }

    private static func emailKey(_ email: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(email)" }

    private static func remove(_ account: EmulatorAccount, from state: inout State) {
        state.accounts[account.localId] = nil
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = nil }
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
        state.withLock { $0.accounts = [:]; $0.uidsByEmail = [:] }
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
                    next.uidsByEmail[key] = account.localId
                }
                next.accounts[account.localId] = account
            }
            guard next.accounts.count <= maximumAccounts else {
                throw .invalidImport("it would hold more than \(maximumAccounts) accounts")
            }
            state = next
        }
    }
}

/// The emulator's refresh tokens: the uid, the account's token generation and its secret, so an
/// account's sessions all end when its generation is raised (password change, revocation).
struct RefreshToken {
    var uid: String
    var generation: Int
    var secret: String

    init(uid: String, generation: Int, secret: String) {
        self.uid = uid
        self.generation = generation
        self.secret = secret
    }

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let uidData = Base64URL.decode(parts[0]), let uid = String(data: uidData, encoding: .utf8),
            let generation = Int(parts[1])
        else { return nil }
        self.init(uid: uid, generation: generation, secret: String(parts[2]))
    }

    var encoded: String { "\(Base64URL.encode(Data(uid.utf8))).\(generation).\(secret)" }
}

extension Date {
    var seconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}
