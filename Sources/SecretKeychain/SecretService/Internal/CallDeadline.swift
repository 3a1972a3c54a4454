import CSecret
import Foundation
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
        DeadlineWatchdog.shared.watch(self)
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
private final class DeadlineWatchdog: @unchecked Sendable {
    // `@unchecked Sendable`: every stored property below is only touched with `condition` locked.
    static let shared = DeadlineWatchdog()

    private struct Entry {
        let due: Date
        let expiry: Expiry
        /// Valid while the entry exists: the deadline removes its entry before releasing it.
        let cancellable: UnsafeMutablePointer<GCancellable>
    }

    private let condition = NSCondition()
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// When the thread wakes next; `nil` while it sleeps with nothing to watch (or is not started).
    private var nextWake: Date?
    private var started = false

    func watch(_ deadline: CallDeadline) {
        let due = Date().addingTimeInterval(deadline.limit.inSeconds)
        condition.lock()
        defer { condition.unlock() }
        entries[ObjectIdentifier(deadline)] = Entry(due: due, expiry: deadline.expiry, cancellable: deadline.cancellable)
        if !started {
            started = true
            Thread { [self] in run() }.start()
        }
        // The thread already wakes at or before this deadline unless this one is the earliest.
        if nextWake.map({ due < $0 }) ?? true {
            nextWake = due
            condition.signal()
        }
    }

    func forget(_ deadline: CallDeadline) {
        condition.lock()
        entries[ObjectIdentifier(deadline)] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            if let wake = nextWake {
                _ = condition.wait(until: wake)
            } else {
                condition.wait()
            }
            let now = Date()
            for (id, entry) in entries where entry.due <= now {
                entry.expiry.flag.store(true, ordering: .sequentiallyConsistent)
                g_cancellable_cancel(entry.cancellable)
                entries[id] = nil
            }
            nextWake = entries.values.map(\.due).min()
        }
    }
}
