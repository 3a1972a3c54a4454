import Dispatch
import Foundation
import KeyringAuth
import Logging
import SecretKeychain
import Synchronization
import SystemSupport

/// The broker: one `Auth` per (app, scope) its clients use, over the session's Secret Service items,
/// so that broker clients, Swift apps and the CLI of a group share one sign-in.
///
/// Threads: calls arrive on the main thread (``BusServer``), are checked there, and run as tasks;
/// whatever blocks (the bus's credentials, the keychain in `Auth`'s start-up and sign-out) runs on
/// ``blocking``, never on the cooperative pool. `Auth` calls its listeners on ``listenerQueue``.
final class Broker: Sendable {
    /// How many watches (`Broker1.Watch`) and follows (`Keychain1.Follow`) each app may have, one for each of its
    /// connections and scopes (with ``ScopeTable``'s bounds on the scopes themselves).
    static let watchShare = AppShare(perApp: 32, total: 1024, reserved: 256)

    let logger: Logger
    let store: any KeychainStore
    private let endpoint: IdentityToolkitEndpoint
    let policy: AccessPolicy
    private let tokenRefresh: TokenRefreshPolicy
    private let bus = Mutex<BusServer?>(nil)
    let blocking = DispatchQueue(label: "keyring-auth-broker.blocking", attributes: .concurrent)
    /// Who follows which scope's items through the item interface.
    let itemFollows = ItemFollows()
    /// The browser sign-ins running, bounded per app and in all.
    private let browserFlows = BrowserFlows()
    /// The second-factor steps under way (a sign-in's resolver, an enrollment's secret), by handle.
    let pendingSteps = PendingSteps()
    /// The calls each app has in progress.
    let callsInProgress = CallsInProgress()
    /// Makes the `Auth`s, one at a time, so that two first calls for one app make one.
    private let registryQueue = DispatchQueue(label: "keyring-auth-broker.registry")
    private let listenerQueue = DispatchQueue(label: "keyring-auth-broker.listeners")
    private let state = Mutex(State())
    let activity: Activity

    private struct State {
        var scopes = ScopeTable()
        var callers: [String: CallerIdentity] = [:]
        var watches: [Scope: ScopeWatch] = [:]
        /// The clients that left lately: a call of one still in progress (identifying it, making an `Auth` for its
        /// watch) must not register it after ``peerLeft(_:)`` has forgotten it. A bus never gives a unique name twice.
        var departed = DepartedClients()
    }

    /// Whether `client` has left the bus (lately).
    func hasLeft(_ client: String) -> Bool { state.withLock { $0.departed.contains(client) } }

    /// The clients watching one scope (each with its app dictionary, and the app whose hold on the scope its watch
    /// is), and what they were last sent.
    private struct ScopeWatch {
        var clients: [String: (app: [String: GVariants.Value], holder: String)] = [:]
        var handle: AuthListenerHandle?
        var lastSent: [String: GVariants.Value] = [:]
    }

    /// One `Auth`: the app as the broker stores it (its private scope keyed by the caller), the group, and the
    /// emulator the app named for its calls (`nil`: Firebase).
    struct Scope: Hashable, Sendable {
        var options: AuthAppOptions
        var group: AccessGroup?
        var emulatorHost: String? = nil
    }

    /// GitHub's address for its flows: github.com, or a GitHub Enterprise Server (`--github-host`).
    let gitHubHost: URL

    init(
        store: any KeychainStore, endpoint: IdentityToolkitEndpoint, policy: AccessPolicy, tokenRefresh: TokenRefreshPolicy,
        idleTimeout: Duration?, gitHubHost: URL = URL(string: "https://github.com")!, logger: Logger
    ) {
        self.gitHubHost = gitHubHost
        self.store = store
        self.endpoint = endpoint
        self.policy = policy
        self.tokenRefresh = tokenRefresh
        self.logger = logger
        activity = Activity(idleTimeout: idleTimeout)
    }

    /// Starts serving on `bus`, whose handlers call ``handle(_:)`` and ``peerLeft(_:)``.
    func start(on bus: BusServer) {
        self.bus.withLock { $0 = bus }
        activity.start { [weak self] in self?.becameIdle() }
    }

    /// The bus, once started.
    var currentBus: BusServer? { bus.withLock { $0 } }

    var handlers: BusServer.Handlers {
        BusServer.Handlers(
            methodCall: { [weak self] call in self?.handle(call) },
            peerLeft: { [weak self] name in self?.peerLeft(name) })
    }

    // MARK: Calls

    /// Checks a call's arguments on the main thread and runs it as a task.
    func handle(_ call: MethodCall) {
        activity.begin()
        let work: @Sendable () async throws -> Void
        do throws(BrokerError) {
            if call.interface == BrokerInterface.keychainName {
                let request = try KeychainRequest(call)
                work = { try await self.perform(request, for: call) }
            } else {
                let request = try Request(call)
                // The call's language, for its requests only: the scope's Auth is shared.
                work = {
                    try await Auth.$languageCodeOfTask.withValue(request.arguments.languageCode) { try await self.perform(request, for: call) }
                }
            }
        } catch {
            logger.info("Refused a call", metadata: ["method": "\(call.method)", "error": "\(error.kind.rawValue)"])
            call.fail(error)
            activity.end()
            return
        }
        Task {
            defer { activity.end() }
            do {
                try await work()
            } catch let error as BrokerError {
                logger.info("A call failed", metadata: ["method": "\(call.method)", "error": "\(error.kind.rawValue)"])
                call.fail(error)
            } catch {
                call.fail(Self.brokerError(from: error))
            }
        }
    }

    private func perform(_ request: Request, for call: MethodCall) async throws {
        let identity = try await identify(call.sender)
        let caller = identity.caller
        try policy.check(caller, group: request.arguments.group)
        try Self.checkEmulator(request.arguments, for: identity)
        let scope = Scope(
            options: Self.storedOptions(request.arguments.options, for: caller), group: request.arguments.group,
            emulatorHost: request.arguments.emulatorHost)
        let app = identity.app
        try callsInProgress.begin(app)
        defer { callsInProgress.end(app) }
        let auth = try await auth(for: scope, heldBy: app)
        defer { letGo(state.withLock { $0.scopes.release(scope, by: app) }) }
        // A held sign-in runs on a scratch Auth of its own, in memory: nothing is stored before CommitSignIn.
        let held = request.arguments.holdSignIn && request.signsIn ? try makeAuth(for: scope, scratch: true) : nil
        let signingIn = held ?? auth
        switch request.operation {
        case .signInAnonymously:
            if held != nil, let current = auth.currentUser, current.isAnonymous {
                // Already signed in anonymously: no change to hold, as the sign-in answers the current user.
                call.reply([UserDictionary.variant(of: current)])
            } else {
                call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signInAnonymously() }])
            }
        case .signInWithEmail(let email, let password):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withEmail: email, password: password) }])
        case .createUserWithEmail(let email, let password):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.createUser(withEmail: email, password: password) }])
        case .signInWithEmailLink(let email, let link):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withEmail: email, link: link) }])
        case .signInWithCustomToken(let token):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withCustomToken: token) }])
        case .signInWithBrowser(let browser):
            let (logger, addresses, gitHubHost) = (logger, Self.reachableAddresses(for: scope), gitHubHost)
            try browser.checkNetwork(of: identity)
            let credential = try await browserFlows.run(for: app, client: call.sender) {
                try await browser.credential(for: caller, auth: auth, addresses: addresses, gitHubHost: gitHubHost, logger: logger)
            }
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .signInWithCredential(let credential):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .startGitHubSignIn(let clientID, let scopes):
            var flow = GitHubDeviceFlow(clientID: clientID, host: gitHubHost)
            if let scopes { flow.scopes = scopes }
            flow.logger = logger
            // The slot is the app's before GitHub is asked (one request at a time per app), and given back on failure.
            let handle = try pendingSteps.reserve(client: call.sender, app: app, scope: scope)
            let authorization: GitHubDeviceAuthorization
            let lifetime: Duration
            do {
                authorization = try await flow.start()
                lifetime = .seconds(max(1, authorization.expirationDate.timeIntervalSinceNow.rounded(.down)))
                try pendingSteps.fill(handle, with: .gitHubDevice(flow, authorization), lifetime: lifetime)
            } catch {
                pendingSteps.finish(handle)
                throw error
            }
            call.reply([
                GVariants.string(handle), GVariants.string(authorization.userCode), GVariants.string(authorization.verificationURI.absoluteString),
                GVariants.int64(lifetime.components.seconds),
            ])
        case .finishGitHubSignIn(let handle):
            guard case .gitHubDevice(let flow, let authorization) = try pendingSteps.step(handle, client: call.sender, scope: scope) else {
                throw BrokerError(.invalidArgument, "That handle is not a GitHub sign-in's; start one with StartGitHubSignIn.")
            }
            // One wait per app, as a browser sign-in, ended when the client leaves the bus.
            let credential = try await browserFlows.run(for: app, client: call.sender) { try await flow.credential(for: authorization) }
            pendingSteps.finish(handle)
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .getUser:
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .updateCurrentUser(let source, let uid):
            // The user of another app or scope of this caller's, which it must be allowed too, becomes this scope's.
            try policy.check(caller, group: source.group)
            try Self.checkEmulator(source, for: identity)
            let sourceScope = Scope(
                options: Self.storedOptions(source.options, for: caller), group: source.group, emulatorHost: source.emulatorHost)
            let sourceAuth = try await self.auth(for: sourceScope, heldBy: app)
            defer { letGo(state.withLock { $0.scopes.release(sourceScope, by: app) }) }
            guard let user = sourceAuth.currentUser, user.uid == uid else {
                throw BrokerError(.notSignedIn, "The user \(BrokerArguments.quoted(uid)) is no longer signed in to \(Self.describe(sourceScope)) "
                    + "of the app it came from; pass a user signed in there now.")
            }
            do { try await auth.updateCurrentUser(user) } catch { throw Self.brokerError(from: error) }
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .signOut:
            try await blocking.run { () throws(BrokerError) in
                do { try auth.signOut() } catch { throw Self.brokerError(from: error) }
            }
            call.reply()
        case .watch:
            try watch(scope, auth: auth, client: call.sender, app: request.arguments.appDictionary, holder: app)
            call.reply()
        case .unwatch:
            unwatch(scope, client: call.sender)
            call.reply()
        default:
            try await performAccountCall(request.operation, auth: auth, scope: scope, app: app, call: call)
        }
    }

    /// Runs a sign-in and answers its user; one that meets the account's second factor keeps its resolver for this
    /// connection and fails with `SecondFactorRequired`, which carries the handle that finishes it. A sign-in run on
    /// `held`, a scratch `Auth`, is held (``heldSignIn(_:on:_:_:_:)``), its second factor's too.
    func signIn(
        _ scope: Scope, _ app: String, _ call: MethodCall, held: Auth? = nil, _ body: () async throws -> AuthDataResult
    ) async throws -> OpaquePointer {
        do {
            let user = try await body().user
            guard let held else { return UserDictionary.variant(of: user) }
            return try heldSignIn(user, on: held, scope, app, call)
        } catch let error as AuthError where error.code == .secondFactorRequired {
            guard let resolver = error.multiFactorResolver else { throw error }
            let handle = try pendingSteps.add(.signIn(resolver, held: held), client: call.sender, app: app, scope: scope)
            throw BrokerError.secondFactorRequired(handle: handle, factors: resolver.hints)
        }
    }

    /// Keeps a held sign-in's `user`, signed in on the scratch `Auth` `held`, for this connection's `CommitSignIn` (or
    /// `DropSignIn`), and answers it with the handle that does so (`heldSignIn`).
    func heldSignIn(_ user: User, on held: Auth, _ scope: Scope, _ app: String, _ call: MethodCall) throws(BrokerError) -> OpaquePointer {
        let handle = try pendingSteps.add(.heldSignIn(user, held), client: call.sender, app: app, scope: scope)
        var values = UserDictionary.values(of: user)
        values["heldSignIn"] = .string(handle)
        return GVariants.dictionary(values)
    }

    /// The options under which `caller`'s app is stored: a sandboxed app's private scope is keyed by
    /// its verified identity (its app name gets the prefix `flatpak:APPID:` or `snap:NAME:`), so
    /// no other app reaches it, whatever Firebase app ID it passes.
    static func storedOptions(_ options: AuthAppOptions, for caller: Caller) -> AuthAppOptions {
        var options = options
        options.appName = caller.privateNamespace + options.appName
        return options
    }

    /// Where the broker's own requests to hosts a caller names may go: for an app that named an emulator (a caller
    /// with the network: its providers in tests run on loopback too), anywhere; else public addresses only, so that no
    /// caller reaches this machine's or its network's services through the broker.
    private static func reachableAddresses(for scope: Scope) -> ReachableAddresses { scope.emulatorHost == nil ? .publicOnly : .any }

    /// Refuses an emulator to a caller that could not reach it itself: the broker is no way out of a sandbox.
    private static func checkEmulator(_ arguments: BrokerArguments, for identity: CallerIdentity) throws(BrokerError) {
        guard arguments.emulatorHost != nil, !identity.sharesNetwork else { return }
        throw BrokerError(.accessDenied, "This app (\(identity.caller)) has no network permission (Flatpak's --share=network), so the "
            + "broker reaches no emulator for it; give the app that permission to use the emulator, or leave emulatorHost out.")
    }

    // MARK: Who is calling

    /// Who `sender` is: from the cache, or from its process, which must still hold the connection
    /// once its files are read (so that the process ID was not reused meanwhile).
    func identify(_ sender: String) async throws(BrokerError) -> CallerIdentity {
        if let identity = state.withLock({ $0.callers[sender] }) { return identity }
        guard let bus = bus.withLock({ $0 }) else { throw BrokerError(.failed, "The broker is not started yet; call again.") }
        let identity = try await blocking.run { () throws(BrokerError) -> CallerIdentity in
            do {
                let (pid, pidfd) = try bus.process(of: sender)
                defer { if let pidfd { close(pidfd) } }
                let identity = try CallerIdentification.identify(pid: pid, pidfd: pidfd)
                guard bus.hasOwner(sender) else { throw BrokerError(.accessDenied, "The caller left the bus.") }
                return identity
            } catch let error as BrokerError {
                throw error
            } catch {
                throw BrokerError(.accessDenied, "The broker cannot tell who is calling (\(error)), so it refuses the call.")
            }
        }
        logger.debug("Identified a client", metadata: [
            "client": "\(sender)", "caller": "\(identity.caller)", "network": "\(identity.sharesNetwork)",
        ])
        state.withLock { state in
            // A client that left meanwhile is not remembered: peerLeft has already forgotten it.
            if !state.departed.contains(sender) { state.callers[sender] = identity }
        }
        return identity
    }

    /// A client left the bus: forget who it was and end its watches.
    func peerLeft(_ name: String) {
        let (emptied, released) = state.withLock { state -> ([(Auth, AuthListenerHandle)], [Auth]) in
            state.departed.insert(name)
            let identity = state.callers.removeValue(forKey: name)
            var emptied: [(Auth, AuthListenerHandle)] = []
            var released: [Auth] = []
            for (scope, var watch) in state.watches {
                guard let left = watch.clients.removeValue(forKey: name) else { continue }
                if watch.clients.isEmpty {
                    state.watches[scope] = nil
                    if let handle = watch.handle, let auth = state.scopes[scope] { emptied.append((auth, handle)) }
                    activity.watchEnded()
                } else {
                    state.watches[scope] = watch
                }
                if let auth = state.scopes.release(scope, by: left.holder) { released.append(auth) }
            }
            // The app's last connection: the scopes only it used are given back.
            if let app = identity?.app, !state.callers.values.contains(where: { $0.app == app }) {
                released += state.scopes.appLeft(app)
            }
            return (emptied, released)
        }
        for (auth, handle) in emptied { auth.removeUserDidChangeListener(handle) }
        letGo(released)
        for _ in 0..<itemFollows.clientLeft(name) { activity.watchEnded() }
        browserFlows.clientLeft(name)
        pendingSteps.clientLeft(name)
    }

    // MARK: The Auths

    /// The scope's `Auth`, held for `app` until the caller releases it (``ScopeTable``).
    private func auth(for scope: Scope, heldBy app: String) async throws(BrokerError) -> Auth {
        if let auth = try state.withLock({ state throws(BrokerError) in try state.scopes.hold(scope, by: app) }) { return auth }
        return try await registryQueue.run { () throws(BrokerError) -> Auth in
            if let auth = try self.state.withLock({ state throws(BrokerError) in try state.scopes.hold(scope, by: app) }) { return auth }
            // Released here, on the registry's queue, outside the lock: an Auth's end may take a D-Bus call.
            let released = try self.state.withLock { state throws(BrokerError) in try state.scopes.makeRoom(for: scope, by: app) }
            if released != nil { self.logger.debug("Released the least lately used scope nobody holds") }
            withExtendedLifetime(released) {}
            let auth = try self.makeAuth(for: scope)
            // A corrupt stored user is replaced by the next sign-in; anything else is tried again by the next call.
            if let error = auth.startupError, error.code != .corruptStoredUser { throw Self.brokerError(from: error) }
            try self.state.withLock { state throws(BrokerError) in try state.scopes.insert(auth, for: scope, by: app) }
            return auth
        }
    }

    /// A new `Auth` of `scope`: the scope's own, over the keychain, or a scratch one in memory (`scratch`), which
    /// signs a held sign-in's user in without storing it anywhere.
    private func makeAuth(for scope: Scope, scratch: Bool = false) throws(BrokerError) -> Auth {
        let endpoint: IdentityToolkitEndpoint
        do throws(AuthError) {
            endpoint = try scope.emulatorHost.map { host throws(AuthError) in try .emulator(hostAndPort: host) } ?? self.endpoint
        } catch {
            throw Self.brokerError(from: error)
        }
        let backend = IdentityToolkitBackend(apiKey: scope.options.apiKey, endpoint: endpoint, requestTimeout: .seconds(15), logger: logger)
        return Auth(configuration: AuthConfiguration(
            options: scope.options, store: scratch ? InMemoryStore() : store, backend: backend, callbackQueue: listenerQueue, logger: logger,
            liveSync: !scratch && scope.group != nil, groupChoices: .pinned(to: scope.group, forAppID: scope.options.appID),
            tokenRefresh: scratch ? .disabled : tokenRefresh))
    }

    // MARK: Watching

    private func watch(
        _ scope: Scope, auth: Auth, client: String, app: [String: GVariants.Value], holder: String
    ) throws(BrokerError) {
        let outcome = try state.withLock { state throws(BrokerError) -> (isFirst: Bool, refused: Bool) in
            // A client that left while its Auth was being made is never added: nothing would remove it.
            if state.departed.contains(client) { return (false, false) }
            let isNew = state.watches[scope]?.clients[client] == nil
            if isNew {
                let watches = state.watches.values.flatMap(\.clients.values)
                let ofApp = watches.count { $0.holder == holder }
                guard Self.watchShare.admits(held: ofApp, inUse: watches.count) else { return (false, true) }
            }
            // The watch holds the scope for its app, as the call does (which holds it now: no quota is passed here).
            if isNew { _ = try state.scopes.hold(scope, by: holder) }
            let isFirst = state.watches[scope] == nil
            if isFirst {
                state.watches[scope] = ScopeWatch(lastSent: UserDictionary.values(of: auth.currentUser))
                activity.watchBegan()
            }
            state.watches[scope]!.clients[client] = (app, holder)
            return (isFirst, false)
        }
        if outcome.refused {
            throw BrokerError(.failed, "An app may have at most \(Self.watchShare.perApp) watches at once, across its connections "
                + "and scopes; unwatch one first.")
        }
        guard outcome.isFirst else { return }
        let handle = auth.addUserDidChangeListener { [weak self] _, user in self?.userChanged(in: scope, to: user) }
        let stale = state.withLock { state -> Bool in
            guard state.watches[scope] != nil else { return true }
            state.watches[scope]!.handle = handle
            return false
        }
        if stale { auth.removeUserDidChangeListener(handle) }
    }

    private func unwatch(_ scope: Scope, client: String) {
        let (ended, released) = state.withLock { state -> ((Auth, AuthListenerHandle)?, Auth?) in
            guard let left = state.watches[scope]?.clients.removeValue(forKey: client) else { return (nil, nil) }
            var ended: (Auth, AuthListenerHandle)?
            if state.watches[scope]!.clients.isEmpty {
                let watch = state.watches.removeValue(forKey: scope)!
                activity.watchEnded()
                if let handle = watch.handle, let auth = state.scopes[scope] { ended = (auth, handle) }
            }
            return (ended, state.scopes.release(scope, by: left.holder))
        }
        if let (auth, handle) = ended { auth.removeUserDidChangeListener(handle) }
        letGo(released)
    }

    /// Lets go of `Auth`s the scope table released, on the registry's queue, outside any lock: an Auth's end may take a
    /// D-Bus call.
    private func letGo(_ released: [Auth]) {
        guard !released.isEmpty else { return }
        registryQueue.async { withExtendedLifetime(released) {} }
    }

    private func letGo(_ released: Auth?) { letGo(released.map { [$0] } ?? []) }

    /// Sends `UserChanged` to each client watching `scope`, when what they were last sent differs.
    func userChanged(in scope: Scope, to user: User?) {
        let values = UserDictionary.values(of: user)
        let recipients = state.withLock { state -> [String: [String: GVariants.Value]] in
            guard var watch = state.watches[scope], watch.lastSent != values else { return [:] }
            watch.lastSent = values
            state.watches[scope] = watch
            return watch.clients.mapValues(\.app)
        }
        guard !recipients.isEmpty, let bus = bus.withLock({ $0 }) else { return }
        let group = scope.group?.rawValue ?? ""
        for (client, app) in recipients {
            let parameters = GVariantValues.tuple([GVariants.dictionary(app), GVariants.string(group), GVariants.dictionary(values)])
            bus.emitSignal("UserChanged", to: client, parameters: parameters)
        }
        logger.debug("Sent UserChanged", metadata: ["clients": "\(recipients.count)"])
    }

    // MARK: Idle

    /// Gives the name back, so that the next call activates a new broker, then exits once every call that
    /// reached this one is answered: calls sent before the release arrive before the bus's reply to it, so
    /// they are dispatched before ``BusServer/afterPendingMessages(_:)`` runs. While another connection is queued for
    /// the name, it keeps the name and looks again at the next idle time: released, the name would go to that
    /// connection, and with it the next app's password.
    private func becameIdle() {
        guard let bus = bus.withLock({ $0 }) else { return }
        let queued: [String]
        do throws(BrokerStartFailure) {
            queued = try bus.othersQueued(for: BrokerInterface.name)
        } catch {
            logger.warning("Idle, but keeping the name: the bus did not say who is queued for it", metadata: ["error": "\(error)"])
            activity.start { [weak self] in self?.becameIdle() }
            return
        }
        guard queued.isEmpty else {
            logger.warning("Idle, but keeping the name: other connections are queued for it and would receive the calls meant for the broker",
                metadata: ["queued": "\(queued.joined(separator: " "))"])
            activity.start { [weak self] in self?.becameIdle() }
            return
        }
        logger.info("Idle: giving the name back and exiting")
        bus.releaseName(BrokerInterface.name)
        stopWhenDrained(bus)
    }

    private func stopWhenDrained(_ bus: BusServer) {
        activity.whenDrained { [self] in
            bus.afterPendingMessages { [self] in
                if activity.isDrained { bus.stop() } else { stopWhenDrained(bus) }
            }
        }
    }

    // MARK: Errors

    static func brokerError(from error: any Error) -> BrokerError {
        if let error = error as? BrokerError { return error }
        guard let error = error as? AuthError else { return BrokerError(.failed, "\(error)") }
        switch error.code.entry.disposition {
        case .keychain:
            return BrokerError(.keychainUnavailable, error.message)
        case .noUser:
            return BrokerError(.notSignedIn, error.message)
        case .groupChoice, .localFailure, .invalidInput, .unreachable, .refused:
            return BrokerError(.backend, "\(error.code.userInfoName): \(error.message)")
        }
    }

    static func describe(_ scope: Scope) -> String {
        scope.group.map { "the access group \($0)" } ?? "the app's private scope"
    }
}
