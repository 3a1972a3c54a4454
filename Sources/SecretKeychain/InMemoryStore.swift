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

    private let entries = Mutex<[KeychainKey: Entry]>([:])
    /// Told of each write while `entries` is locked, so that changes are delivered in the order of the writes.
    private let observers = LocalObservers(label: "SecretKeychain.InMemoryStore.changes")

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
            observers.announce([KeychainChange(key: key, kind: .stored)])
        }
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try key.validate()
        return entries.withLock { entries in
            guard entries.removeValue(forKey: key) != nil else { return false }
            observers.announce([KeychainChange(key: key, kind: .removed)])
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
            observers.announce(keys.map { KeychainChange(key: $0, kind: .removed) })
            return keys.count
        }
    }

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        observers.observe(in: scope, handler)
    }
}
