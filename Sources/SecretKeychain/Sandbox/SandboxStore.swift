import Dispatch
import FoundationEssentials
import Logging
import SystemSupport

/// What a sandboxed app keeps its items in when the session's Secret Service is out of its reach: its own
/// (private) items in one store, the access groups' items in another.
///
/// ``automatic(sandbox:secretService:)`` makes the usual one: the app's own items in its portal keyring
/// (``SecretPortalStore``, no permission needed) and the groups through the broker (``BrokerKeychainStore``,
/// one talk-name); where the session's portal has no Secret backend, the app's own items through the broker too.
public struct SandboxStore: KeychainStore {
    /// Where items without an access group go.
    public let privateStore: any KeychainStore
    /// Where the items of every access group go.
    public let groupStore: any KeychainStore
    /// Why the private items are not in the portal keyring, when ``privateStore`` is the broker: said in its errors.
    let privateFallbackReason: String?

    /// A store that sends private keys to `privateStore` and grouped keys to `groupStore`.
    public init(privateStore: any KeychainStore, groupStore: any KeychainStore) {
        self.init(privateStore: privateStore, groupStore: groupStore, privateFallbackReason: nil)
    }

    init(privateStore: any KeychainStore, groupStore: any KeychainStore, privateFallbackReason: String?) {
        self.privateStore = privateStore
        self.groupStore = groupStore
        self.privateFallbackReason = privateFallbackReason
    }

    /// The store for this process's `Auth`: the Secret Service outside a sandbox, and inside one where the app may
    /// reach it (it was given `org.freedesktop.secrets`); otherwise a ``SandboxStore`` over the portal keyring (or the
    /// broker, where the portal has no Secret backend) and the broker. Outside a sandbox it contacts nothing; inside,
    /// it asks the bus whether the Secret Service is reachable and the portal whether it has a Secret backend, the
    /// questions sent together (one round trip, bounded). The choice is logged at debug level; `keyring-auth doctor`
    /// reports it.
    ///
    /// - Parameters:
    ///   - sandbox: The sandbox this process runs in.
    ///   - configuration: How to reach the Secret Service; its logger is every store's.
    public static func automatic(
        sandbox: Sandbox = .current, secretService configuration: SecretServiceStore.Configuration = .init()
    ) -> any KeychainStore {
        let logger = configuration.logger
        let secretService = SecretServiceStore(configuration: configuration)
        guard sandbox.isSandboxed else { return secretService }
        let portal = SecretPortalStore.precheck(sandbox: sandbox)
        var calls = SecretServiceStore.reachabilityCalls
        let portalAnswer = calls.count
        if case .askThePortal = portal { calls.append(SecretPortalStore.versionCall) }
        let answers = SessionBusCall.callTogether(calls, limit: configuration.timeout)
        defer { SessionBusCall.release(answers) }
        guard !SecretServiceStore.isReachable(answers) else { return secretService }
        let broker = BrokerKeychainStore(configuration: .init(logger: logger))
        let unavailability: String? =
            switch portal {
            case .usable: nil
            case .unavailable(let reason): reason
            case .askThePortal: SecretPortalStore.unavailability(versionAnswer: answers[portalAnswer])
            }
        if let reason = unavailability {
            logger.debug("In a sandbox without the Secret Service or a Secret portal: the app's own items and its groups go through the broker",
                        metadata: ["sandbox": "\(sandbox)", "portal": "\(reason)"])
            return SandboxStore(privateStore: broker, groupStore: broker, privateFallbackReason: "the Secret portal is not available (\(reason))")
        }
        logger.debug("In a sandbox without the Secret Service: the app's own items in its portal keyring, its groups through the broker",
                    metadata: ["sandbox": "\(sandbox)"])
        let privateStore = SecretPortalStore(configuration: .init(logger: logger), portalAnswered: { if case .askThePortal = portal { true } else { false } }())
        return SandboxStore(privateStore: privateStore, groupStore: broker)
    }

    private func store(for key: KeychainKey) -> any KeychainStore {
        key.accessGroup == nil ? privateStore : groupStore
    }

    /// Runs `body` on the store of `key`, saying in a private item's ``KeychainError/noBroker(detail:)`` why the
    /// portal keyring was not used.
    private func routed<Result>(
        _ key: KeychainKey?, _ body: (any KeychainStore) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result {
        let store = key.map(store(for:)) ?? privateStore
        do {
            return try body(store)
        } catch .noBroker(let detail) where key?.accessGroup == nil {
            guard let reason = privateFallbackReason else { throw .noBroker(detail: detail) }
            throw .noBroker(detail: "\(reason), so the app's own items go through the broker too, and \(detail)")
        }
    }

    // MARK: KeychainStore

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try routed(key) { store throws(KeychainError) in try store.data(for: key) }
    }

    public func data(for key: KeychainKey, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) -> Data? {
        try routed(key) { store throws(KeychainError) in try store.data(for: key, checkedBy: isIntact) }
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try routed(key) { store throws(KeychainError) in try store.setData(data, for: key, label: label) }
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) {
        try routed(key) { store throws(KeychainError) in try store.setData(data, for: key, label: label, checkedBy: isIntact) }
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try routed(key) { store throws(KeychainError) in try store.removeData(for: key) }
    }

    public func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] {
        try listing(in: scope).items
    }

    public func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing {
        switch scope {
        case .ungrouped:
            return try routed(nil) { store throws(KeychainError) in try store.listing(in: .ungrouped) }
        case .group:
            return try groupStore.listing(in: scope)
        case .all:
            let own = try routed(nil) { store throws(KeychainError) in try store.listing(in: .ungrouped) }
            let shared = try groupStore.listing(in: .all)
            let items = own.items + shared.items.filter { $0.key.accessGroup != nil }
            return KeychainListing(
                items: items.sorted { KeychainKey.listingOrder($0.key, $1.key) },
                unrecognized: (own.unrecognized + shared.unrecognized).sorted { $0.identifier < $1.identifier })
        }
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) throws(KeychainError) -> Int {
        try groupStore.removeAll(in: group)
    }

    /// The private scope's changes from ``privateStore``, a group's from ``groupStore``; `.all` from both.
    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        switch scope {
        case .ungrouped:
            return try routed(nil) { store throws(KeychainError) in try store.observeChanges(in: .ungrouped, handler) }
        case .group:
            return try groupStore.observeChanges(in: scope, handler)
        case .all:
            let combined = KeychainObservation(handler: handler)
            let own = try privateStore.observeChanges(in: .ungrouped) { combined.deliver($0) }
            let shared = try groupStore.observeChanges(in: .all) { change in
                if change.key.accessGroup != nil { combined.deliver(change) }
            }
            for part in [own, shared] { part.whenEnded { combined.end($0) } }
            combined.whenCancelled {
                own.cancel()
                shared.cancel()
            }
            return combined
        }
    }
}
