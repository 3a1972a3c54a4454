internal import CGLib
import Synchronization

/// A `GCancellable` that the process's ``DeadlineTimer`` cancels once a limit passes, so that a blocking GIO call
/// (D-Bus, libsecret) returns instead of waiting for ever: the package's one way to bound such a call.
///
/// `@unchecked Sendable`: the cancellable is only touched through thread-safe GLib calls, and the timer's action is
/// cancelled (under the timer's lock) before `deinit` releases the cancellable.
package final class CancellableDeadline: @unchecked Sendable {
    /// The `GCancellable *` to pass to the call.
    package let cancellable: OpaquePointer
    /// The limit this deadline enforces.
    package let limit: Duration
    private let expiry: Expiry
    private let token: DeadlineTimer.Token?

    /// Starts the clock. A limit of zero or less has run out already: the cancellable is cancelled at once.
    ///
    /// - Throws: ``OwnThreadFailure`` when the timer's thread cannot be started: the call must not be made, since
    ///   nothing would end it.
    package init(limit: Duration) throws(OwnThreadFailure) {
        self.limit = limit
        let cancellable = g_cancellable_new()!
        self.cancellable = OpaquePointer(cancellable)
        let expiry = Expiry()
        self.expiry = expiry
        guard limit > .zero else {
            token = nil
            expiry.flag.store(true, ordering: .sequentiallyConsistent)
            g_cancellable_cancel(cancellable)
            return
        }
        // The pointer is valid while the action may run: `deinit` cancels the action first.
        let address = UInt(bitPattern: cancellable)
        do throws(OwnThreadFailure) {
            token = try DeadlineTimer.shared.schedule(after: limit) {
                expiry.flag.store(true, ordering: .sequentiallyConsistent)
                g_cancellable_cancel(UnsafeMutablePointer<GCancellable>(bitPattern: address))
            }
        } catch {
            g_object_unref(cancellable)
            throw error
        }
    }

    /// Whether the limit passed and the cancellable was cancelled.
    package var hasExpired: Bool { expiry.flag.load(ordering: .sequentiallyConsistent) }

    deinit {
        if let token { DeadlineTimer.shared.cancel(token) }
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }
}

/// Whether a deadline passed; shared by the deadline and its timer action.
private final class Expiry: Sendable {
    let flag = Atomic(false)
}
