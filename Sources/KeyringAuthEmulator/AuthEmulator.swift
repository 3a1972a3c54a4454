import Foundation
import SystemSupport
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local emulator of Firebase Auth's REST API (Identity Toolkit and the secure-token service),
/// serving the paths Firebase's own emulator serves, over plain HTTP:
/// `/identitytoolkit.googleapis.com/v1/accounts:{createAuthUri,signUp,signInWithPassword,signInWithIdp,signInWithCustomToken,lookup,update,delete}`
/// and `/securetoken.googleapis.com/v1/token`, plus `GET /`, `DELETE /emulator/v1/projects/<project>/accounts`,
/// for the email actions (`accounts:sendOobCode`, `accounts:resetPassword`, `accounts:signInWithEmailLink`)
/// `GET /emulator/v1/projects/<project>/oobCodes` and the links' `GET /emulator/action`, and for phone numbers
/// (`accounts:sendVerificationCode`, `accounts:signInWithPhoneNumber`, SMS second factors)
/// `GET /emulator/v1/projects/<project>/verificationCodes`. Beyond Firebase's emulator,
/// `accounts:createAuthUri` with a `providerId` begins that provider's sign-in as Identity Platform does, its `authUri`
/// leading to the emulator's own page for the provider (`GET /emulator/auth/idp`), and App Check's exchanges
/// `/firebaseappcheck.googleapis.com/v1/projects/<project>/apps/<appId>:{exchangeDebugToken,exchangeCustomToken}`
/// issue tokens that Auth's calls then need where ``Configuration/appCheck`` enforces it (``AppCheckSettings``).
///
/// Accounts live in memory. Any non-empty API key is accepted. ID tokens are unsigned JWTs
/// (`alg: none`) with Firebase's claims. Point an app at it with `Auth.useEmulator(withHost:port:)`
/// or `FIREBASE_AUTH_EMULATOR_HOST=host:port`.
///
/// Because of that, it listens on loopback only unless ``Configuration/allowsNonLoopback`` says
/// otherwise. Connections idle for ``Configuration/idleTimeout`` are closed, at most
/// ``Configuration/maximumConnections`` are open at once, and when the process runs out of file
/// descriptors it waits between attempts to accept instead of spinning.
public final class AuthEmulator: Sendable {
    /// Where the emulator listens.
    public struct Address: Hashable, Sendable, CustomStringConvertible {
        /// The host as configured, without the brackets of an IPv6 address.
        public var host: String
        public var port: Int
        /// `host:port`, the form `FIREBASE_AUTH_EMULATOR_HOST` takes (`[::1]:port` for IPv6).
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The longest token lifetime: 366 days, the most a client accepts.
    public static let maximumTokenLifetimeSeconds = 366 * 24 * 3600

    public let configuration: Configuration
    let service: EmulatorService
    private let lifecycle = Mutex<Lifecycle>(.stopped)
    /// Open client connections, at most ``Configuration/maximumConnections``; ``stop()`` closes them so that
    /// no kept-alive connection is served after it.
    private let connections: OpenConnections

    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, clock: Date.init)
    }

    /// An emulator on `clock`, which tests move.
    init(configuration: Configuration, clock: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.service = EmulatorService(configuration: configuration, clock: clock)
        self.connections = OpenConnections(limit: configuration.maximumConnections, logger: configuration.logger)
    }

    /// Starts listening and returns the address (with the port chosen when ``Configuration/port`` is 0).
    /// Calling it again, or concurrently, while starting or running returns the same address.
    ///
    /// - Throws: ``AuthEmulatorError/hostDoesNotResolve(host:)``, ``AuthEmulatorError/notLoopback(host:address:)``
    ///   (a host other than loopback without ``Configuration/allowsNonLoopback``),
    ///   ``AuthEmulatorError/cannotListen(host:port:reason:)`` or ``AuthEmulatorError/invalidConfiguration(_:)``.
    @discardableResult
    public func start() async throws(AuthEmulatorError) -> Address {
        let pending = lifecycle.withLock { state -> StartStep in
            switch state {
            case .running(_, let address): return .running(address)
            case .starting(let task): return .starting(task)
            case .stopped:
                let task = StartTask { await self.listen() }
                state = .starting(task)
                return .starting(task)
            }
        }
        let starting: StartTask
        switch pending {
        case .running(let address): return address
        case .starting(let task): starting = task
        }
        let result = await starting.value
        lifecycle.withLock { state in
            guard case .starting = state else { return }
            switch result {
            case .success(let listener): state = .running(listener.channel, listener.address)
            case .failure: state = .stopped
            }
        }
        return try result.get().address
    }

    private typealias StartTask = Task<Result<(channel: any Channel, address: Address), AuthEmulatorError>, Never>

    private enum StartStep {
        case running(Address)
        case starting(StartTask)
    }

    private enum Lifecycle {
        case stopped
        case starting(StartTask)
        case running(any Channel, Address)
    }

    private func listen() async -> Result<(channel: any Channel, address: Address), AuthEmulatorError> {
        let configuration = configuration
        guard (0...65535).contains(configuration.port) else {
            return .failure(.invalidConfiguration("the port \(configuration.port) is not from 0 to 65535"))
        }
        guard configuration.maximumRequestBytes > 0, configuration.maximumAccounts > 0,
            configuration.tokenLifetime >= .seconds(1), configuration.tokenLifetime <= .seconds(Self.maximumTokenLifetimeSeconds)
        else {
            return .failure(.invalidConfiguration(
                "the request size and account limit must be positive, the token lifetime from 1 s to 366 days"))
        }
        guard configuration.idleTimeout > .zero, configuration.maximumConnections > 0 else {
            return .failure(.invalidConfiguration("the idle timeout and the connection limit must be positive"))
        }
        if let problem = configuration.appCheck?.problem { return .failure(.invalidConfiguration(problem)) }
        let listening: ListeningAddress
        do throws(AuthEmulatorError) {
            listening = try ListeningAddress.resolve(configuration.host, port: configuration.port)
        } catch {
            return .failure(error)
        }
        if !listening.isLoopback {
            guard configuration.allowsNonLoopback else {
                return .failure(.notLoopback(host: configuration.host, address: listening.numeric))
            }
        }
        let service = service
        let hosts = HostHeaderPolicy(configuredHost: listening.isLoopback ? nil : listening.host)
        let connections = connections
        let idleTimeout = TimeAmount(configuration.idleTimeout)
        let logger = configuration.logger
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(pause: .milliseconds(100), logger: logger))
                    try channel.pipeline.syncOperations.addHandler(ConnectionLimiter(connections: connections))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: idleTimeout))
                    try channel.pipeline.syncOperations.addHandler(IdleConnectionCloser())
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        EmulatorHTTPHandler(
                            service: service, hosts: hosts, maximumBodyBytes: configuration.maximumRequestBytes,
                            logger: configuration.logger))
                }
            }
        do {
            let channel = try await bootstrap.bind(to: listening.socketAddress).get()
            let bound = Address(host: listening.host, port: channel.localAddress?.port ?? configuration.port)
            if !listening.isLoopback {
                let warning = "The Auth emulator listens on \(bound) (\(listening.numeric)), which is not loopback: any process "
                    + "on the network can use it. It accepts any API key; the Admin API with the fixed 'Authorization: Bearer owner' "
                    + "(every account read, changed, deleted or created, tenants, the project's config); sign-in as any uid with "
                    + "an unsigned custom token; the unauthenticated list of email action codes, with their password-reset and "
                    + "sign-in links; and an unauthenticated delete-all."
                configuration.logger.warning("\(warning)")
            }
            configuration.logger.info("Auth emulator listening", metadata: ["address": "\(bound)", "project": "\(configuration.projectID)"])
            return .success((channel, bound))
        } catch {
            return .failure(.cannotListen(host: listening.host, port: configuration.port, reason: "\(error)"))
        }
    }

    /// The address while running, else `nil`.
    public var address: Address? {
        lifecycle.withLock { state in
            if case .running(_, let address) = state { return address }
            return nil
        }
    }

    /// Stops listening and closes every open connection; accounts are kept for a later ``start()``.
    public func stop() async {
        let previous = lifecycle.withLock { state in
            defer { state = .stopped }
            return state
        }
        switch previous {
        case .stopped:
            return
        case .starting(let task):
            if case .success(let listener) = await task.value { try? await listener.channel.close() }
        case .running(let channel, _):
            try? await channel.close()
        }
        for connection in connections.all {
            try? await connection.close()
        }
    }

    /// Starts, then serves until the task is cancelled, then stops.
    ///
    /// - Throws: ``AuthEmulatorError`` if it cannot start.
    public func run() async throws(AuthEmulatorError) {
        try await start()
        let (stream, continuation) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
        await stop()
    }

    // MARK: Administration

    /// The switches that can change while running.
    public var settings: Settings {
        get { service.settings }
        set { service.settings = newValue }
    }

    /// An unsigned custom token (`alg: none`), as the Admin SDK's `createCustomToken` would mint it for
    /// `uid`, for `signIn(withCustomToken:)` against an emulator (which checks no signature). Firebase
    /// itself refuses it.
    ///
    /// - Parameters:
    ///   - claims: Claims for the session's ID tokens: a JSON-serializable object of at most 1,000 bytes.
    ///   - tenantID: The tenant the token is for, when the app signs in to one.
    public static func unsignedCustomToken(uid: String, claims: [String: any Sendable]? = nil, tenantID: String? = nil) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var payload: [String: Any] = [
            "aud": EmulatorService.customTokenAudience, "iat": now, "exp": now + 3600, "uid": uid,
            "iss": "firebase-adminsdk@demo-keyring-auth.iam.gserviceaccount.com",
            "sub": "firebase-adminsdk@demo-keyring-auth.iam.gserviceaccount.com",
        ]
        if let claims { payload["claims"] = claims as [String: Any] }
        if let tenantID { payload["tenant_id"] = tenantID }
        let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8)
        let body = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
        return "\(Base64URL.encode(header)).\(Base64URL.encode(body))."
    }

    /// The last 1,000 requests to the Identity Toolkit and token endpoints, oldest first: which operation,
    /// with which tenant and language. For tests that check what a client sends; tokens and passwords
    /// are not kept.
    public var receivedRequests: [ReceivedRequest] { service.receivedRequests }

    /// Every account, oldest first.
    public var accounts: [EmulatorAccount] { service.accounts }

    /// Removes every account.
    public func removeAllAccounts() { service.removeAllAccounts() }

    /// Disables (or enables again) an account: its sign-ins, lookups and refreshes answer `USER_DISABLED`.
    ///
    /// - Throws: ``AuthEmulatorError/noSuchAccount(uid:)``.
    public func setAccount(_ uid: String, disabled: Bool) throws(AuthEmulatorError) {
        guard service.modifyAccount(uid, { account, _ in account.disabled = disabled }) else { throw .noSuchAccount(uid: uid) }
    }

    /// Ends every session of an account: its refresh tokens answer `TOKEN_EXPIRED`, and ID tokens
    /// issued before this second no longer pass.
    ///
    /// - Throws: ``AuthEmulatorError/noSuchAccount(uid:)``.
    public func revokeTokens(of uid: String) throws(AuthEmulatorError) {
        guard service.modifyAccount(uid, { account, now in
            account.tokenGeneration += 1
            account.validSince = now
        }) else { throw .noSuchAccount(uid: uid) }
    }

    /// Sets an account's custom claims, as the Admin SDK's `setCustomUserClaims` does: every ID token
    /// issued for the account from now on carries them at its top level (apps see them after the next
    /// refresh, for example `getIDTokenResult(forcingRefresh: true)`). `nil` removes them.
    ///
    /// - Throws: ``AuthEmulatorError/invalidClaims(_:)`` when the claims are not a JSON object of at most
    ///   1,000 bytes or set a claim Firebase reserves (`iss`, `aud`, `sub`, `exp`, `firebase`, …);
    ///   ``AuthEmulatorError/noSuchAccount(uid:)``. Nothing is changed then.
    public func setCustomClaims(_ claims: [String: any Sendable]?, of uid: String) throws(AuthEmulatorError) {
        var text: String?
        if let claims {
            let object = claims as [String: Any]
            if let problem = CustomClaims.problem(with: object) { throw .invalidClaims(problem) }
            // Checked above: a JSON object that serializes.
            text = String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        guard service.modifyAccount(uid, { account, _ in account.customAttributes = text }) else { throw .noSuchAccount(uid: uid) }
    }

    /// The accounts as JSON, `{"kind": "identitytoolkit#DownloadAccountResponse", "users": […]}`.
    /// Passwords are left out unless `includingPasswords` is set; then the file holds them in clear.
    public func exportAccounts(includingPasswords: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.userInfo[.includePasswords] = includingPasswords
        // Strings, numbers and booleans always encode.
        return try! encoder.encode(AccountFile(users: service.accounts))
    }

    /// Adds the accounts of an export (this emulator's, or Firebase's `accounts.json` whose users carry
    /// `rawPassword`); an account with an existing uid replaces it.
    ///
    /// - Throws: ``AuthEmulatorError/invalidImport(_:)``; nothing is changed then.
    public func importAccounts(_ data: Data) throws(AuthEmulatorError) {
        let file: AccountFile
        do {
            file = try JSONDecoder().decode(AccountFile.self, from: data)
        } catch {
            throw .invalidImport("it is not an accounts file (\(error))")
        }
        try service.insert(file.users ?? [])
    }

    private struct AccountFile: Codable {
        var kind = "identitytoolkit#DownloadAccountResponse"
        var users: [EmulatorAccount]?
    }
}
