import CSecret
import FoundationEssentials
import KeyringAuth
import SecretKeychain
import Synchronization
import SystemSupport

// The item interface (io.github.keyringauth.Keychain1): a sandboxed Swift app's Auth keeps its items here,
// under the same rules as the broker's own calls.
extension Broker {
    func perform(_ request: KeychainRequest, for call: MethodCall) async throws {
        let identity = try await identify(call.sender)
        let caller = identity.caller
        try policy.check(caller, group: request.group)
        let namespace = caller.privateNamespace
        try callsInProgress.begin(identity.app)
        defer { callsInProgress.end(identity.app) }
        switch request.operation {
        case .lookup(let key):
            let data = try await keychain { store throws(KeychainError) in try store.data(for: StoredUserKeys.brokered(key, privateNamespace: namespace)) }
            call.reply([GVariants.bool(data != nil), GVariantValues.bytes(data ?? Data())])
        case .store(let key, _, let secret):
            let stored = StoredUserKeys.brokered(key, privateNamespace: namespace)
            // Replacing an item the app has is always allowed, so only a new item is counted against its share: one
            // read of the key, rather than a listing of every item, for the writes an Auth makes most (its refreshes).
            // A read that fails says nothing either way, and the listing decides.
            let label = KeychainQuota.label(of: key, for: caller)
            let write = { @Sendable () async throws(BrokerError) in
                try await self.keychain { store throws(KeychainError) in try store.setData(secret, for: stored, label: label) }
            }
            if caller != .host, await (try? keychain { store throws(KeychainError) in try store.data(for: stored) != nil }) != true {
                // A new item: the app's count and its write are made one at a time for the app, whatever its connections
                // send at once, so that no two writes are counted against the same room; a failed write takes none.
                try await newItems.run(for: identity.app) {
                    try KeychainQuota.check(storing: key, for: caller, among: try await listing(.all, for: caller))
                    try await write()
                }
            } else {
                try await write()
            }
            call.reply()
        case .remove(let key):
            let removed = try await keychain { store throws(KeychainError) in try store.removeData(for: StoredUserKeys.brokered(key, privateNamespace: namespace)) }
            call.reply([GVariants.bool(removed)])
        case .list(let scope):
            let items = try await listing(scope, for: caller)
            call.reply([GVariantValues.array(of: "(ssssxxu)", items.map(Self.variant(of:)))])
        case .removeAll(let group):
            // Only Auth's items of the group: other programs' items in it are not the broker's to remove.
            let removed = try await keychain { store throws(KeychainError) -> Int in
                var removed = 0
                for item in try store.items(in: .group(group)) where StoredUserKeys.isAuthItem(item.key) {
                    if try store.removeData(for: item.key) { removed += 1 }
                }
                return removed
            }
            call.reply([g_variant_new_uint32(guint32(removed))])
        case .follow:
            try await follow(request.group, client: call.sender, namespace: namespace, app: identity.app)
            call.reply()
        case .unfollow:
            if itemFollows.remove(request.group, client: call.sender) { activity.watchEnded() }
            call.reply()
        }
    }

    /// The items of `scope` the caller knows, by its own keys: its private items, and the groups it may use.
    private func listing(_ scope: KeychainRequest.ListScope, for caller: Caller) async throws(BrokerError) -> [KeychainItemInfo] {
        let storeScope: KeychainScope
        switch scope {
        case .privateScope: storeScope = .ungrouped
        case .group(let group): storeScope = .group(group)
        case .all: storeScope = .all
        }
        let items = try await keychain { store throws(KeychainError) in try store.items(in: storeScope) }
        return items.compactMap { item in
            guard let key = StoredUserKeys.unbrokered(item.key, privateNamespace: caller.privateNamespace) else { return nil }
            if let group = key.accessGroup {
                guard (try? policy.check(caller, group: group)) != nil else { return nil }
            }
            var item = item
            item.key = key
            return item
        }
    }

    private static func variant(of item: KeychainItemInfo) -> OpaquePointer? {
        GVariantValues.tuple([
            GVariants.string(item.key.accessGroup?.rawValue ?? ""), GVariants.string(item.key.service), GVariants.string(item.key.account),
            GVariants.string(item.label), g_variant_new_int64(gint64(item.created.timeIntervalSince1970)),
            g_variant_new_int64(gint64(item.modified.timeIntervalSince1970)), g_variant_new_uint32(guint32(clamping: item.size)),
        ])
    }

    /// Runs `body` with the broker's store on the blocking queue, its errors as the broker's.
    private func keychain<Success: Sendable>(
        _ body: @escaping @Sendable (any KeychainStore) throws(KeychainError) -> Success
    ) async throws(BrokerError) -> Success {
        let store = self.store
        return try await blocking.run { () throws(BrokerError) -> Success in
            do throws(KeychainError) {
                return try body(store)
            } catch {
                throw Self.brokerError(from: error)
            }
        }
    }

    /// A keychain failure as the item interface answers it: the caller's mistake, or the keychain's state, its
    /// code first (`locked: …`), so that the client store can tell them apart.
    static func brokerError(from error: KeychainError) -> BrokerError {
        switch error {
        case .invalidKey, .invalidAccessGroup, .payloadTooLarge:
            BrokerError(.invalidArgument, error.description)
        default:
            BrokerError(.keychainUnavailable, "\(error.code): \(error.description)")
        }
    }

    // MARK: Following

    /// Starts sending `ItemChanged` to `client` for the changes of `group` (its private scope: `nil`).
    private func follow(_ group: AccessGroup?, client: String, namespace: String, app: String) async throws(BrokerError) {
        switch try itemFollows.add(group, client: client, namespace: namespace, app: app, share: Self.watchShare) {
        case .refused:
            throw BrokerError(.failed, "An app may have at most \(Self.watchShare.perApp) follows at once, across its connections and "
                + "scopes; unfollow one first.")
        case .already:
            return
        case .added(let needsObservation):
            activity.watchBegan()
            guard needsObservation else { return }
        }
        logger.debug("Following a scope's items", metadata: ["group": "\(group.map { "\($0)" } ?? "private")"])
        do {
            let observation = try await keychain { store throws(KeychainError) in
                try store.observeChanges(in: group.map { .group($0) } ?? .ungrouped) { [weak self] change in
                    self?.forward(change, in: group)
                }
            }
            if !itemFollows.keep(observation, for: group) { observation.cancel() }
        } catch {
            if itemFollows.remove(group, client: client) { activity.watchEnded() }
            throw error
        }
    }

    /// Sends `change` to each follower of `group` that knows the item, by its own key.
    private func forward(_ change: KeychainChange, in group: AccessGroup?) {
        guard let bus = currentBus else { return }
        for (client, namespace) in itemFollows.followers(of: group) {
            guard let key = StoredUserKeys.unbrokered(change.key, privateNamespace: namespace) else { continue }
            let parameters = GVariantValues.tuple([
                GVariants.string(group?.rawValue ?? ""), GVariants.string(key.service), GVariants.string(key.account),
                GVariants.string(change.kind.rawValue),
            ])
            bus.emitSignal("ItemChanged", of: BrokerInterface.keychainName, to: client, parameters: parameters)
        }
    }
}

/// Who follows which scope's items, and the one store observation per scope that feeds them.
final class ItemFollows: Sendable {
    private struct Scope {
        /// Client unique name → its private namespace and its app.
        var followers: [String: (namespace: String, app: String)] = [:]
        var observation: KeychainObservation?
    }

    private let scopes = Mutex<[AccessGroup?: Scope]>([:])
    private let clients: ClientGate

    init(clients: ClientGate) {
        self.clients = clients
    }

    enum Added {
        /// Newly followed; `needsObservation` for the scope's first follower.
        case added(needsObservation: Bool)
        case already
        case refused
    }

    /// Adds `client`'s following of `group`, unless its app has its `share` of follows already; refused to a client
    /// that has left the bus (``ClientGate``, checked under this table's lock).
    func add(_ group: AccessGroup?, client: String, namespace: String, app: String, share: AppShare) throws(BrokerError) -> Added {
        try scopes.withLock { scopes throws(BrokerError) in
            try clients.admit(client)
            if scopes[group]?.followers[client] != nil { return .already }
            let follows = scopes.values.flatMap(\.followers.values)
            guard share.admits(held: follows.count { $0.app == app }, inUse: follows.count) else { return .refused }
            let isFirst = scopes[group] == nil
            scopes[group, default: Scope()].followers[client] = (namespace, app)
            return .added(needsObservation: isFirst)
        }
    }

    /// Keeps the scope's observation; `false` when nobody follows the scope any more (then the caller cancels it).
    func keep(_ observation: KeychainObservation, for group: AccessGroup?) -> Bool {
        scopes.withLock { scopes in
            guard scopes[group] != nil, scopes[group]?.observation == nil else { return false }
            scopes[group]!.observation = observation
            return true
        }
    }

    /// Ends `client`'s following of `group`; whether it followed. The scope's observation ends with its last follower.
    func remove(_ group: AccessGroup?, client: String) -> Bool {
        let (removed, ended) = scopes.withLock { scopes -> (Bool, KeychainObservation?) in
            guard scopes[group]?.followers.removeValue(forKey: client) != nil else { return (false, nil) }
            guard scopes[group]!.followers.isEmpty else { return (true, nil) }
            return (true, scopes.removeValue(forKey: group)?.observation)
        }
        ended?.cancel()
        return removed
    }

    /// Ends every following of `client`; how many it had.
    func clientLeft(_ client: String) -> Int {
        let groups = scopes.withLock { scopes in scopes.filter { $0.value.followers[client] != nil }.map { $0.key } }
        return groups.filter { remove($0, client: client) }.count
    }

    func followers(of group: AccessGroup?) -> [(client: String, namespace: String)] {
        scopes.withLock { scopes in (scopes[group]?.followers ?? [:]).map { ($0.key, $0.value.namespace) } }
    }
}
