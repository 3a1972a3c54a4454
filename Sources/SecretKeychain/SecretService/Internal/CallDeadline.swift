import CSecret
import SystemSupport

/// A libsecret call's time limit: SystemSupport's ``CancellableDeadline``, with its failure as the keychain's error and
/// its cancellable as libsecret takes it.
struct CallDeadline {
    private let deadline: CancellableDeadline

    /// Starts the clock, once a descriptor is known to be free for the main context that GLib's and libsecret's
    /// synchronous calls make for themselves (GLib ends the process when it cannot make one).
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` (domain `pthread`) when the process's deadline timer
    ///   cannot start its thread, or (domain `descriptors`) when the process is out of descriptors: the call is not made.
    init(limit: Duration) throws(KeychainError) {
        do throws(DescriptorShortage) {
            try MainContexts.checkDescriptorFree()
        } catch {
            throw .underlying(domain: "descriptors", code: Int(error.code), message: "The keychain call was not made: \(error.explanation).")
        }
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
