import Foundation
import SecretKeychain
import Synchronization
import Subprocesses
import Testing

/// Observing an ``InMemoryStore``: this process's writes, in order, for the observed scope only.
@Suite struct InMemoryObservationTests {
    let group = try! AccessGroup("TEAMID.observed")
    var key: KeychainKey { KeychainKey(service: "s", account: "a", accessGroup: group) }

    @Test func writesAndRemovalsInTheScopeAreReportedInOrder() async throws {
        let store = InMemoryStore()
        let changes = Mailbox<KeychainChange>()
        let observation = try await store.observeChanges(in: .group(group)) { changes.post($0) }
        let second = KeychainKey(service: "s2", account: "a", accessGroup: group)
        try await store.setData(Data("1".utf8), for: key, label: "l")
        try await store.setData(Data("x".utf8), for: KeychainKey(service: "s", account: "a"), label: "private: not in the scope")
        try await store.setData(Data("x".utf8), for: KeychainKey(service: "s", account: "a", accessGroup: try AccessGroup("TEAMID.other")), label: "other group")
        try await store.setData(Data("2".utf8), for: second, label: "l")
        try await store.removeData(for: KeychainKey(service: "never", account: "stored", accessGroup: group))
        try await store.removeData(for: key)
        try await store.removeAll(in: group)
        var received: [KeychainChange] = []
        for _ in 0..<4 { received.append(try await changes.next()) }
        #expect(received == [
            KeychainChange(key: key, kind: .stored), KeychainChange(key: second, kind: .stored),
            KeychainChange(key: key, kind: .removed), KeychainChange(key: second, kind: .removed),
        ])
        observation.cancel()
    }

    @Test func aCancelledOrReleasedObservationIsNeverCalledAgain() async throws {
        let store = InMemoryStore()
        let cancelledCalls = Atomic(0), releasedCalls = Atomic(0)
        let kept = Mailbox<KeychainChange>()
        let cancelled = try await store.observeChanges(in: .all) { _ in cancelledCalls.add(1, ordering: .relaxed) }
        var released: KeychainObservation? = try await store.observeChanges(in: .all) { _ in releasedCalls.add(1, ordering: .relaxed) }
        let observation = try await store.observeChanges(in: .all) { kept.post($0) }
        #expect(released?.isCancelled == false)
        cancelled.cancel()
        released = nil
        try await store.setData(Data("1".utf8), for: key, label: "l")
        // Observations are told in the order they started: the kept one last.
        #expect(try await kept.next() == KeychainChange(key: key, kind: .stored))
        #expect(cancelledCalls.load(ordering: .relaxed) == 0)
        #expect(releasedCalls.load(ordering: .relaxed) == 0)
        #expect(cancelled.isCancelled)
        observation.cancel()
    }

    @Test func aHandlerMayCancelItsOwnObservation() async throws {
        let store = InMemoryStore()
        let calls = Mailbox<KeychainChange>()
        let holder = Mutex<KeychainObservation?>(nil)
        let observation = try await store.observeChanges(in: .all) { change in
            calls.post(change)
            holder.withLock { $0 }?.cancel()
        }
        holder.withLock { $0 = observation }
        let after = Mailbox<KeychainChange>()
        let later = try await store.observeChanges(in: .all) { after.post($0) }
        try await store.setData(Data("1".utf8), for: key, label: "l")
        try await store.setData(Data("2".utf8), for: key, label: "l")
        _ = try await after.next()
        _ = try await after.next()
        #expect(try await calls.next() == KeychainChange(key: key, kind: .stored))
        #expect(calls.queued.isEmpty, "cancelled by its own handler after the first change")
        #expect(observation.isCancelled)
        later.cancel()
    }

    @Test func refreshOnChangesFoldsABurstIntoOneQueuedCall() async throws {
        let store = InMemoryStore()
        let queue = DispatchQueue(label: "refresh")
        let refreshes = Atomic(0)
        // The queue is held while the burst arrives: every change of the burst finds a call queued.
        let hold = DispatchSemaphore(value: 0)
        queue.async { hold.wait() }
        let observation = try await store.refreshOnChanges(to: key, on: queue) { refreshes.add(1, ordering: .relaxed) }
        let delivered = Mailbox<KeychainChange>()
        let barrier = try await store.observeChanges(in: .all) { delivered.post($0) }
        for value in 0..<50 { try await store.setData(Data("\(value)".utf8), for: key, label: "l") }
        try await store.setData(Data("x".utf8), for: KeychainKey(service: "other", account: "a", accessGroup: group), label: "l")
        for _ in 0..<51 { _ = try await delivered.next() }
        hold.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(refreshes.load(ordering: .relaxed) == 1)
        observation.cancel()
        barrier.cancel()
    }
}
