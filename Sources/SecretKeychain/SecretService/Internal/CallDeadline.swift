import CSecret
import SystemSupport

/// A libsecret call's time limit: SystemSupport's ``CancellableDeadline``, with its failure as the keychain's error and
/// its cancellable as libsecret takes it.
struct CallDeadline {
    private let deadline: CancellableDeadline

    /// Starts the clock.
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` (domain `pthread`) when the process's deadline timer
    ///   cannot start its thread: the call is not made, since nothing would end it.
    init(limit: Duration) throws(KeychainError) {
        do throws(OwnThreadFailure) {
            deadline = try CancellableDeadline(limit: limit)
        } catch {
            throw .underlying(domain: "pthread", code: Int(error.code), message: "The keychain call was not made: \(error.explanation).")
        }
    }

    /// The cancellable to pass to the libsecret call.
    var cancellable: UnsafeMutablePointer<GCancellable> { UnsafeMutablePointer(deadline.cancellable) }

    /// Whether the limit passed and the cancellable was cancelled.
    var hasExpired: Bool { deadline.hasExpired }
}
