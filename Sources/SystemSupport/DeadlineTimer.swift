internal import CGLib

/// The package's one deadline timer: one thread for every deadline of the process (`deadlines`),
/// asleep until the earliest is due. A timer per call would cost more than a D-Bus call's own traffic
/// (measured: a third of a read's CPU time); here scheduling only takes a lock, and the thread wakes
/// about once per limit while calls go on. Times are GLib's monotonic clock (microseconds), so a
/// change of the wall clock moves no deadline.
package final class DeadlineTimer: @unchecked Sendable {
    // `@unchecked Sendable`: every stored var below is only touched with `mutex` locked.

    /// The process's timer.
    package static let shared = DeadlineTimer()

    /// The name of the timer's thread, as `/proc/PID/task/TID/comm` shows it.
    package static let threadName = "deadlines"

    private static let centuryInMicroseconds = 100 * 365.25 * 86_400 * 1e6

    /// A scheduled action; ``cancel(_:)`` it once it is no longer wanted.
    package struct Token: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let due: gint64
        let action: @Sendable () -> Void
    }

    // Never freed: the timer lives as long as the process.
    private let mutex: UnsafeMutablePointer<GMutex> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<GCond> = .allocate(capacity: 1)
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0
    /// When the thread wakes next; `nil` while it sleeps with nothing due (or is not started).
    private var nextWake: gint64?
    private var started = false

    private init() {
        g_mutex_init(mutex)
        g_cond_init(condition)
    }

    /// Runs `action` on the timer's thread once `delay` has passed, unless cancelled first. `action`
    /// runs with the timer's lock held: it must be short and must not schedule or cancel. Delays past
    /// a century are a century: any delay is taken, none overflows the clock.
    ///
    /// - Throws: ``OwnThreadFailure`` when the timer's thread is not running yet and cannot be started: nothing is
    ///   scheduled (the next call tries again), and a call that needs its limit must not start unbounded.
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) throws(OwnThreadFailure) -> Token {
        let microseconds = min(delay.inMicroseconds, Self.centuryInMicroseconds).rounded(.up)
        let due = g_get_monotonic_time() + gint64(microseconds)
        g_mutex_lock(mutex)
        defer { g_mutex_unlock(mutex) }
        if !started {
            try OwnThread.detach(name: Self.threadName) { DeadlineTimer.shared.run() }
            started = true
        }
        nextID += 1
        entries[nextID] = Entry(due: due, action: action)
        // The thread already wakes at or before this deadline unless this one is the earliest.
        if nextWake.map({ due < $0 }) ?? true {
            nextWake = due
            g_cond_signal(condition)
        }
        return Token(id: nextID)
    }

    /// Forgets the action: once this returns, it never runs (it may have run already).
    package func cancel(_ token: Token) {
        g_mutex_lock(mutex)
        entries[token.id] = nil
        g_mutex_unlock(mutex)
    }

    private func run() {
        g_mutex_lock(mutex)
        while true {
            if let wake = nextWake {
                _ = g_cond_wait_until(condition, mutex, wake)
            } else {
                g_cond_wait(condition, mutex)
            }
            let now = g_get_monotonic_time()
            for (id, entry) in entries where entry.due <= now {
                entry.action()
                entries[id] = nil
            }
            nextWake = entries.values.map(\.due).min()
        }
    }
}
