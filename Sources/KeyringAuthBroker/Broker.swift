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
/// ``blocking``, never on the cooperative pool. `Auth` calls its listeners on ``listenerQueue``. An `Auth` is let go
/// of on ``registryQueue``, never inside a lock nor on the main thread: its end may take a D-Bus call.
///
/// Its jobs, a file each: the calls (`Broker+Calls`), the registry of `Auth`s (`Broker+Registry`), the clients that
/// come and go (`Broker+Clients`), watches (`Broker+Watches`), GitHub's device flow (`Broker+GitHub`), phone numbers (`Broker+Phone`), the account
/// calls (`Broker+Account`), the item interface (`Broker+Keychain`) and idleness (`Broker+Idle`).
final class Broker: Sendable {
    /// How many watches (`Broker1.Watch`) and follows (`Keychain1.Follow`) each app may have, one for each of its
    /// connections and scopes (with ``ScopeTable``'s bounds on the scopes themselves).
    static let watchShare = AppShare(perApp: 32, total: 1024, reserved: 256)

    let logger: Logger
    let store: any KeychainStore
    let endpoint: IdentityToolkitEndpoint
    let policy: AccessPolicy
    let tokenRefresh: TokenRefreshPolicy
    let bus = Mutex<BusServer?>(nil)
    let blocking = DispatchQueue(label: "keyring-auth-broker.blocking", attributes: .concurrent)
    /// Which clients have left the bus, checked by every table below as it adds a client's thing.
    let clients = ClientGate()
    /// Who follows which scope's items through the item interface.
    let itemFollows: ItemFollows
    /// The browser sign-ins running, bounded per app and in all.
    let browserFlows: BrowserFlows
    /// The second-factor steps under way (a sign-in's resolver, an enrollment's secret), by handle.
    let pendingSteps: PendingSteps
    /// The SMS codes each app has had sent, bounded against SMS pumping.
    let phoneSends: PhoneSends
    /// The calls each app has in progress.
    let callsInProgress = CallsInProgress()
    /// A sandboxed app's new items of `Keychain1`, written one at a time, so that its share is counted right.
    let newItems = AppSerialQueue()
    /// Makes the `Auth`s, one at a time, so that two first calls for one app make one; and lets go of them.
    let registryQueue = DispatchQueue(label: "keyring-auth-broker.registry")
    let listenerQueue = DispatchQueue(label: "keyring-auth-broker.listeners")
    let state = Mutex(State())
    let activity: Activity

    struct State {
        var scopes = ScopeTable()
        var callers: [String: CallerIdentity] = [:]
        var watches: [AuthScope: ScopeWatch] = [:]
    }

    /// The clients watching one scope (each with its app dictionary, and the app whose hold on the scope its watch
    /// is), and what they were last sent.
    struct ScopeWatch {
        var clients: [String: (app: [String: GVariants.Value], holder: String)] = [:]
        var handle: AuthListenerHandle?
        var lastSent: [String: GVariants.Value] = [:]
    }

    /// GitHub's address for its flows: github.com, or a GitHub Enterprise Server (`--github-host`).
    let gitHubHost: URL

    init(
        store: any KeychainStore, endpoint: IdentityToolkitEndpoint, policy: AccessPolicy, tokenRefresh: TokenRefreshPolicy,
        idleTimeout: Duration?, gitHubHost: URL = URL(string: "https://github.com")!, phoneSends: PhoneSends = PhoneSends(), logger: Logger
    ) {
        self.phoneSends = phoneSends
        self.gitHubHost = gitHubHost
        self.store = store
        self.endpoint = endpoint
        self.policy = policy
        self.tokenRefresh = tokenRefresh
        self.logger = logger
        itemFollows = ItemFollows(clients: clients)
        browserFlows = BrowserFlows(clients: clients)
        pendingSteps = PendingSteps(clients: clients)
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
}
