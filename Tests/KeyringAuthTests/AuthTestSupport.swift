import Dispatch
import Foundation
import SecretKeychain
import Synchronization

@testable import KeyringAuth
import KeyringTestSupport

/// A store over a working one whose ``observeChanges(in:_:)`` waits, while the gate is closed, until it is opened
/// (at most 10 s); it counts reads.
final class GatedStore: KeychainStore {
    let base: any KeychainStore
    private let closed = Mutex(false)
    private let opened = DispatchSemaphore(value: 0)
    let reads = Atomic(0)

    init(base: any KeychainStore) { self.base = base }

    func close() { closed.withLock { $0 = true } }

    func open() {
        closed.withLock { $0 = false }
        opened.signal()
    }

    func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        reads.add(1, ordering: .relaxed)
        return try base.data(for: key)
    }

    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try base.setData(data, for: key, label: label)
    }

    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool { try base.removeData(for: key) }
    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { try base.items(in: scope) }
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { try base.removeAll(in: group) }

    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        if closed.withLock({ $0 }) { _ = opened.wait(timeout: .now() + 10) }
        return try base.observeChanges(in: scope, handler)
    }
}

/// A store whose reads, writes or deletes fail (of every key, or of ``failingKey`` only), over a working one.
final class FailingStore: KeychainStore {
    let base = InMemoryStore()
    let failReads = Atomic(false)
    let failWrites = Atomic(false)
    let failRemoves = Atomic(false)
    /// When set, only operations on this key fail.
    let failingKey = Mutex<KeychainKey?>(nil)
    static let failure = KeychainError.locked(collection: "the default alias")

    private func fails(_ flag: borrowing Atomic<Bool>, _ key: KeychainKey) -> Bool {
        flag.load(ordering: .relaxed) && failingKey.withLock { $0.map { $0 == key } ?? true }
    }

    func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        if fails(failReads, key) { throw Self.failure }
        return try base.data(for: key)
    }

    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        if fails(failWrites, key) { throw Self.failure }
        try base.setData(data, for: key, label: label)
    }

    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        if fails(failRemoves, key) { throw Self.failure }
        return try base.removeData(for: key)
    }

    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { try base.items(in: scope) }
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { try base.removeAll(in: group) }

    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        try base.observeChanges(in: scope, handler)
    }
}
