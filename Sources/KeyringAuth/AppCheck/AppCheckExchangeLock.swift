import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// One exchange at a time among an app's processes: a lock file under `$XDG_RUNTIME_DIR/keyring-auth/`, held while
/// one process exchanges, so that the others find its token in the keyring after it. Waited for at most a limit
/// (a process of the session may hold it for ever), then the exchange goes on without it.
final class AppCheckExchangeLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// How many acquisitions found the lock held and waited (for the tests).
    static let waits = Atomic<Int>(0)

    /// The file of the lock named `name` under `runtimeDirectory`.
    static func path(name: String, in runtimeDirectory: String) -> String {
        runtimeDirectory + "/keyring-auth/app-check-\(name).lock"
    }

    /// The lock named `name` (hex digits), taken within `limit`, or `nil` when there is no runtime directory, its file
    /// cannot be opened, or another holds it past `limit`.
    static func acquire(name: String, in runtimeDirectory: String?, limit: Duration) async -> AppCheckExchangeLock? {
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        _ = mkdir(runtimeDirectory + "/keyring-auth", 0o700)
        let descriptor = open(path(name: name, in: runtimeDirectory), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        let deadline = ContinuousClock.now + limit
        var counted = false
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return AppCheckExchangeLock(descriptor: descriptor) }
            if !counted {
                counted = true
                waits.add(1, ordering: .relaxed)
            }
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline, !Task.isCancelled else {
                close(descriptor)
                return nil
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Lets the next process in.
    func release() {
        close(descriptor)
    }

    /// The lock's name for a keyring item: hex of its key's digest.
    static func name(for key: String) -> String {
        Digest.hex(Array(Digest.sha256(Array(key.utf8)).prefix(16)))
    }
}
