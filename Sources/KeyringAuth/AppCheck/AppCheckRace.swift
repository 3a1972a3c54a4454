import Synchronization
import SystemSupport

/// What `work` gives within `limit`, or `nil` after it (the work goes on, its result unused): a bound on a wait for
/// something that cannot be cancelled, such as a fetch other callers share or a provider's completion.
enum AppCheckRace {
    static func first<Value: Sendable>(
        within limit: Duration, _ work: @escaping @Sendable () async -> Value
    ) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let waiting = Mutex<CheckedContinuation<Value?, Never>?>(continuation)
            let deadline = try? DeadlineTimer.shared.schedule(after: limit) {
                waiting.withLock { $0.take() }?.resume(returning: nil)
            }
            Task {
                let value = await work()
                if let deadline { DeadlineTimer.shared.cancel(deadline) }
                waiting.withLock { $0.take() }?.resume(returning: value)
            }
        }
    }

    /// The value a completion-handler call gives within `limit`, `nil` after it; a second completion is ignored.
    static func completion<Value: Sendable>(
        within limit: Duration, _ call: @escaping @Sendable (@escaping @Sendable (Value) -> Void) -> Void
    ) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let waiting = Mutex<CheckedContinuation<Value?, Never>?>(continuation)
            let deadline = try? DeadlineTimer.shared.schedule(after: limit) {
                waiting.withLock { $0.take() }?.resume(returning: nil)
            }
            call { value in
                if let deadline { DeadlineTimer.shared.cancel(deadline) }
                waiting.withLock { $0.take() }?.resume(returning: value)
            }
        }
    }
}
