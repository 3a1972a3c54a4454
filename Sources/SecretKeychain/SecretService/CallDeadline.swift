import CSecret
import Dispatch
import Synchronization

/// A `GCancellable` that cancels itself when a time limit passes, so that a blocking libsecret
/// call returns instead of waiting forever (a locked collection's prompt has no timeout of its own).
///
/// Safe to share across threads: `g_cancellable_cancel` is thread-safe, the timer runs on its own
/// queue, and the cancellable stays referenced until both the call and the timer are done with it.
final class CallDeadline: @unchecked Sendable {
    /// The cancellable to pass to the libsecret call.
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// The limit this deadline enforces.
    let limit: Duration
    private let timer: any DispatchSourceTimer
    private let expired = Atomic(false)

    private static let timerQueue = DispatchQueue(label: "SecretKeychain.CallDeadline")

    /// Starts the clock.
    init(limit: Duration) {
        self.limit = limit
        self.cancellable = g_cancellable_new()
        self.timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        let (seconds, attoseconds) = limit.components
        let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            expired.store(true, ordering: .sequentiallyConsistent)
            g_cancellable_cancel(cancellable)
        }
        timer.resume()
    }

    /// Whether the limit passed and the cancellable was cancelled.
    var hasExpired: Bool { expired.load(ordering: .sequentiallyConsistent) }

    deinit {
        timer.cancel()
        g_object_unref(cancellable)
    }
}
