import ArgumentParser
import CProcessControl
import Foundation

/// Secrets on their way in: standard input read with a bound, and the process made non-dumpable first.
enum SecretInput {
    /// The most standard input may hold: a password, token, secret or link is far smaller (a Firebase ID
    /// token is about 1 KB). More is refused unread, so that a mistaken pipe cannot grow the process.
    static let maximumBytes = 64 * 1024

    /// Makes the process non-dumpable for the rest of its life: no core file, and other processes of the
    /// user can neither ptrace it nor read its memory through /proc. Every command that runs calls it
    /// (stored users hold tokens), before any secret is read.
    static func protectProcess() {
        _ = kra_set_dumpable(0)
    }
}
