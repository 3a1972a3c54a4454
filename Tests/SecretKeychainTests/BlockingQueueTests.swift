import Dispatch
import Foundation
import SecretKeychain
import Synchronization
import SystemSupport
import Testing

/// The `async` forms of every store run its synchronous calls on the store's `blockingQueue`, never
/// in place on Swift's cooperative pool; `DispatchQueue.run` is the one bridge that does it.
@Suite struct BlockingQueueTests {
    /// A store over an in-memory one that records, for each call, whether it ran on a queue
    /// marked with `marker`.
    private final class RecordingStore: KeychainStore {
        let base = InMemoryStore()
        let ownQueue: DispatchQueue?
        let marker: DispatchSpecificKey<Bool>
        let onQueue = Mutex<[Bool]>([])

        init(queue: DispatchQueue?, marker: DispatchSpecificKey<Bool>) {
            self.ownQueue = queue
            self.marker = marker
        }

        var blockingQueue: DispatchQueue { ownQueue ?? base.blockingQueue }

        private func record() { onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: marker) == true) } }

        func data(for key: KeychainKey) throws(KeychainError) -> Data? { record(); return try base.data(for: key) }
        func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
            record(); try base.setData(data, for: key, label: label)
        }
        func removeData(for key: KeychainKey) throws(KeychainError) -> Bool { record(); return try base.removeData(for: key) }
        func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { record(); return try base.items(in: scope) }
        func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { record(); return try base.removeAll(in: group) }
        func observeChanges(
            in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
        ) throws(KeychainError) -> KeychainObservation {
            record(); return try base.observeChanges(in: scope, handler)
        }
    }

    private func exercise(_ store: RecordingStore) async throws {
        let group = try AccessGroup("TEAMID.blocking")
        let key = KeychainKey(service: "s", account: "a", accessGroup: group)
        let observation = try await store.observeChanges(in: .group(group)) { _ in }
        try await store.setData(Data("v".utf8), for: key, label: "l")
        #expect(try await store.data(for: key) == Data("v".utf8))
        #expect(try await store.items(in: .group(group)).count == 1)
        #expect(try await store.listing(in: .group(group)).items.count == 1)
        #expect(try await store.removeData(for: key))
        #expect(try await store.removeAll(in: group) == 0)
        observation.cancel()
    }

    @Test func aStoreWithoutAQueueRunsOnTheSharedOne() async throws {
        let marker = DispatchSpecificKey<Bool>()
        let store = RecordingStore(queue: nil, marker: marker)
        #expect(store.blockingQueue === InMemoryStore().blockingQueue)
        store.blockingQueue.setSpecific(key: marker, value: true)
        try await exercise(store)
        #expect(store.onQueue.withLock { $0 } == Array(repeating: true, count: 7))
    }

    @Test func aStoreWithItsOwnQueueRunsOnIt() async throws {
        let marker = DispatchSpecificKey<Bool>()
        let queue = DispatchQueue(label: "BlockingQueueTests.own")
        queue.setSpecific(key: marker, value: true)
        let store = RecordingStore(queue: queue, marker: marker)
        try await exercise(store)
        #expect(store.onQueue.withLock { $0 } == Array(repeating: true, count: 7))
    }

    @Test func theSecretServiceStoreHasAQueueOfItsOwn() {
        let store = SecretServiceStore()
        #expect(store.blockingQueue !== InMemoryStore().blockingQueue)
        #expect(store.blockingQueue === store.blockingQueue)
    }

    @Test func runReturnsAndThrowsWhatTheBodyDoes() async {
        let marker = DispatchSpecificKey<Bool>()
        let queue = DispatchQueue(label: "BlockingQueueTests.run")
        queue.setSpecific(key: marker, value: true)
        #expect(await queue.run { DispatchQueue.getSpecific(key: marker) == true })
        let error = KeychainError.locked(collection: "c")
        await #expect(throws: error) {
            try await queue.run { () throws(KeychainError) -> Int in throw error }
        }
    }
}
