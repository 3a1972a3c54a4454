import Dispatch
import FoundationEssentials
import Synchronization

/// A ``KeychainStore`` that keeps items in this process's memory, with the same rules as the
/// Secret Service store: one item per key, groups kept apart, the same size limit.
///
/// Use it for tests of code above the keychain and where a user has chosen not to persist
/// anything. Nothing is written to disk, and everything is gone when the store is.
/// It is safe to use from any thread. Observations report the writes of this store only, in order,
/// on a queue of the store's; for each write, observations are told in the order they started.
public final class InMemoryStore: KeychainStore {
    private struct Entry {
        var data: Data
        var label: String
        var created: Date
        var modified: Date
    }

    private struct Observer {
        weak var observation: KeychainObservation?
        var scope: KeychainScope
    }

    private let entries = Mutex<[KeychainKey: Entry]>([:])
    private let observers = Mutex<[Int: Observer]>([:])
    private let nextObserverID = Atomic(0)
    /// Where changes are delivered, one at a time and in the order of the writes.
    private let delivery = DispatchQueue(label: "SecretKeychain.InMemoryStore.changes")

    public init() {}

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try key.validate()
        return entries.withLock { $0[key]?.data }
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try key.validate()
        try KeychainLimits.validate(secretSize: data.count)
        let now = Date()
        entries.withLock { entries in
            let created = entries[key]?.created ?? now
            entries[key] = Entry(data: data, label: label, created: created, modified: now)
            announce([KeychainChange(key: key, kind: .stored)])
        }
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try key.validate()
        return entries.withLock { entries in
            guard entries.removeValue(forKey: key) != nil else { return false }
            announce([KeychainChange(key: key, kind: .removed)])
            return true
        }
    }

    public func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] {
        entries.withLock { entries in
            entries.compactMap { key, entry in
                guard scope.contains(key) else { return nil }
                return KeychainItemInfo(
                    key: key, label: entry.label, created: entry.created,
                    modified: entry.modified, size: entry.data.count)
            }
        }
        .sorted { KeychainKey.listingOrder($0.key, $1.key) }
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) throws(KeychainError) -> Int {
        entries.withLock { entries in
            let keys = entries.keys.filter { $0.accessGroup == group }
            for key in keys { entries.removeValue(forKey: key) }
            announce(keys.map { KeychainChange(key: $0, kind: .removed) })
            return keys.count
        }
    }

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let observation = KeychainObservation(handler: handler)
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = Observer(observation: observation, scope: scope) }
        observation.whenCancelled { [weak self] in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return observation
    }

    /// Queues `changes` for the observers whose scope they concern. Called while `entries` is
    /// locked, so that changes are queued in the order they were made.
    private func announce(_ changes: [KeychainChange]) {
        let observers = observers.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers {
            guard let observation = observer.observation else { continue }
            for change in changes where observer.scope.contains(change.key) {
                delivery.async { observation.deliver(change) }
            }
        }
    }
}
