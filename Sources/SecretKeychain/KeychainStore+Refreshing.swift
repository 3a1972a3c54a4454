import Dispatch
import Synchronization

extension KeychainStore {
    /// Calls `refresh` on `queue` after the item under `key` changes, to read it again.
    ///
    /// Changes that arrive while a call is already queued are folded into it, so a burst of writes
    /// costs one or two reads, never one per write. Once the observation is cancelled, `refresh`
    /// is not called again.
    ///
    /// - Throws: ``KeychainError``, as ``observeChanges(in:_:)``.
    public func refreshOnChanges(
        to key: KeychainKey, on queue: DispatchQueue, _ refresh: @escaping @Sendable () -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let refresher = CoalescingRefresher(key: key, queue: queue, refresh: refresh)
        return refresher.follow(try observeChanges(in: refresher.scope, refresher.changed))
    }

    /// The `async` form of ``refreshOnChanges(to:on:_:)``.
    public func refreshOnChanges(
        to key: KeychainKey, on queue: DispatchQueue, _ refresh: @escaping @Sendable () -> Void
    ) async throws(KeychainError) -> KeychainObservation {
        let refresher = CoalescingRefresher(key: key, queue: queue, refresh: refresh)
        return refresher.follow(try await observeChanges(in: refresher.scope, refresher.changed))
    }
}

/// Queues one call of `refresh` for any number of changes of `key` reported before it runs.
private final class CoalescingRefresher: Sendable {
    private let key: KeychainKey
    private let queue: DispatchQueue
    private let refresh: @Sendable () -> Void
    private let pending = Atomic(false)
    /// The observation whose cancellation stops queued calls; weak, as the observation owns the
    /// handler that owns this. Until it is known, changes are passed on.
    private let observation = Mutex<FollowedObservation>(FollowedObservation())

    private struct FollowedObservation {
        var isKnown = false
        weak var value: KeychainObservation?

        var hasEnded: Bool { isKnown && (value?.isCancelled ?? true) }
    }

    init(key: KeychainKey, queue: DispatchQueue, refresh: @escaping @Sendable () -> Void) {
        self.key = key
        self.queue = queue
        self.refresh = refresh
    }

    /// The scope to observe: the key's group, or the private scope.
    var scope: KeychainScope { key.accessGroup.map { .group($0) } ?? .ungrouped }

    func follow(_ observation: KeychainObservation) -> KeychainObservation {
        self.observation.withLock { $0 = FollowedObservation(isKnown: true, value: observation) }
        return observation
    }

    func changed(_ change: KeychainChange) {
        guard change.key == key, !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            // Cleared before reading, so that a change during the read queues another one.
            pending.store(false, ordering: .releasing)
            guard !observation.withLock({ $0.hasEnded }) else { return }
            refresh()
        }
    }
}
