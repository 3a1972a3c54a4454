import CSecret
import Synchronization
import SystemSupport

/// A `GCancellable` that is cancelled when a time limit passes, so that a blocking libsecret call
/// returns instead of waiting forever (a locked collection's prompt has no timeout of its own).
/// The limit is kept by the process's ``DeadlineTimer``.
///
/// `@unchecked Sendable`: the cancellable is only touched through thread-safe GLib calls, and the
/// timer's action is cancelled (under the timer's lock) before `deinit` releases the cancellable.
final class CallDeadline: @unchecked Sendable {
    /// The cancellable to pass to the libsecret call.
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// The limit this deadline enforces.
    let limit: Duration
    private let expiry: Expiry
    private let token: DeadlineTimer.Token?

    /// Starts the clock.
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` when the process's deadline timer cannot start
    ///   its thread: the call is not made, since nothing would end it.
    init(limit: Duration) throws(KeychainError) {
        self.limit = limit
        let cancellable = g_cancellable_new()!
        self.cancellable = cancellable
        let expiry = Expiry()
        self.expiry = expiry
        if limit > .zero {
            // The pointer is valid while the action may run: `deinit` cancels the action first.
            let address = UInt(bitPattern: cancellable)
            do throws(OwnThreadFailure) {
                token = try DeadlineTimer.shared.schedule(after: limit) {
                    expiry.flag.store(true, ordering: .sequentiallyConsistent)
                    g_cancellable_cancel(UnsafeMutablePointer<GCancellable>(bitPattern: address))
                }
            } catch {
                g_object_unref(cancellable)
                throw .underlying(domain: "pthread", code: Int(error.code), message: "The keychain call was not made: \(error.explanation).")
            }
        } else {
            // Run out before the call starts: cancelled now, so the call fails every time.
            token = nil
            expiry.flag.store(true, ordering: .sequentiallyConsistent)
            g_cancellable_cancel(cancellable)
        }
    }

    /// Whether the limit passed and the cancellable was cancelled.
    var hasExpired: Bool { expiry.flag.load(ordering: .sequentiallyConsistent) }

    deinit {
        if let token { DeadlineTimer.shared.cancel(token) }
        g_object_unref(cancellable)
    }
}

/// Whether a deadline passed; shared by the deadline and its timer action.
private final class Expiry: Sendable {
    let flag = Atomic(false)
}
