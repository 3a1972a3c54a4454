import CSecret
import FoundationEssentials
import Synchronization

/// A `GCancellable` that is cancelled when a time limit passes, so that a blocking libsecret call
/// returns instead of waiting forever (a locked collection's prompt has no timeout of its own).
///
/// `@unchecked Sendable`: the cancellable is only touched through thread-safe GLib calls, and the
/// ``DeadlineWatchdog`` drops its entry (under its lock) before `deinit` releases the cancellable.
final class CallDeadline: @unchecked Sendable {
    /// The cancellable to pass to the libsecret call.
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// The limit this deadline enforces.
    let limit: Duration
    fileprivate let expiry = Expiry()

    /// Starts the clock.
    init(limit: Duration) {
        self.limit = limit
        self.cancellable = g_cancellable_new()
        if limit > .zero {
            DeadlineWatchdog.shared.watch(self)
        } else {
            // Run out before the call starts: cancelled now, so the call fails every time.
            expiry.flag.store(true, ordering: .sequentiallyConsistent)
            g_cancellable_cancel(cancellable)
        }
    }

    /// Whether the limit passed and the cancellable was cancelled.
    var hasExpired: Bool { expiry.flag.load(ordering: .sequentiallyConsistent) }

    deinit {
        DeadlineWatchdog.shared.forget(self)
        g_object_unref(cancellable)
    }
}

/// Whether a deadline passed; shared by the deadline and the watchdog's entry for it.
private final class Expiry: Sendable {
    let flag = Atomic(false)
}

/// One thread for every deadline of the process, asleep until the earliest is due. A timer per
/// call would cost more than the call's own D-Bus traffic (measured: a third of a read's CPU time);
/// here a call only takes a lock, and the thread wakes about once per limit while calls go on.
/// Times are GLib's monotonic clock (microseconds), so a change of the wall clock moves no limit.
private final class DeadlineWatchdog: @unchecked Sendable {
    // `@unchecked Sendable`: every stored var below is only touched with `mutex` locked.
    static let shared = DeadlineWatchdog()

    /// The name of the watchdog's thread, as `/proc/PID/task/TID/comm` shows it.
    static let threadName = "keychain-limits"

    private static let centuryInMicroseconds = 100 * 365.25 * 86_400 * 1e6

    private struct Entry {
        let due: gint64
        let expiry: Expiry
        /// Valid while the entry exists: the deadline removes its entry before releasing it.
        let cancellable: UnsafeMutablePointer<GCancellable>
    }

    // Never freed: the watchdog lives as long as the process.
    private let mutex: UnsafeMutablePointer<GMutex> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<GCond> = .allocate(capacity: 1)
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// When the thread wakes next; `nil` while it sleeps with nothing to watch (or is not started).
    private var nextWake: gint64?
    private var started = false

    private init() {
        g_mutex_init(mutex)
        g_cond_init(condition)
    }

    func watch(_ deadline: CallDeadline) {
        // Limits past a century are a century: any configured limit is taken, none overflows the clock.
        let microseconds = min(deadline.limit.inSeconds * 1e6, Self.centuryInMicroseconds).rounded(.up)
        let due = g_get_monotonic_time() + gint64(microseconds)
        g_mutex_lock(mutex)
        defer { g_mutex_unlock(mutex) }
        entries[ObjectIdentifier(deadline)] = Entry(due: due, expiry: deadline.expiry, cancellable: deadline.cancellable)
        if !started {
            started = true
            g_thread_unref(g_thread_new(Self.threadName, { _ in DeadlineWatchdog.shared.run() }, nil))
        }
        // The thread already wakes at or before this deadline unless this one is the earliest.
        if nextWake.map({ due < $0 }) ?? true {
            nextWake = due
            g_cond_signal(condition)
        }
    }

    func forget(_ deadline: CallDeadline) {
        g_mutex_lock(mutex)
        entries[ObjectIdentifier(deadline)] = nil
        g_mutex_unlock(mutex)
    }

    private func run() -> Never {
        g_mutex_lock(mutex)
        while true {
            if let wake = nextWake {
                _ = g_cond_wait_until(condition, mutex, wake)
            } else {
                g_cond_wait(condition, mutex)
            }
            let now = g_get_monotonic_time()
            for (id, entry) in entries where entry.due <= now {
                entry.expiry.flag.store(true, ordering: .sequentiallyConsistent)
                g_cancellable_cancel(entry.cancellable)
                entries[id] = nil
            }
            nextWake = entries.values.map(\.due).min()
        }
    }
}
