internal import CGLib

/// A lock its holder may take again (GLib's `GRecMutex`), for a handler that may call back into
/// what called it.
///
/// `@unchecked Sendable`: the mutex is only touched through GLib's thread-safe calls.
package final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<GRecMutex>

    package init() {
        mutex = .allocate(capacity: 1)
        g_rec_mutex_init(mutex)
    }

    deinit {
        g_rec_mutex_clear(mutex)
        mutex.deallocate()
    }

    package func lock() { g_rec_mutex_lock(mutex) }
    package func unlock() { g_rec_mutex_unlock(mutex) }
}
