import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, as a shell would start it: signals unblocked and at
/// their defaults, standard streams from files.
///
/// Foundation's `Process` is not used: it spawns from a dispatch worker thread whose blocked signal
/// mask the child inherits (SIGTERM then does nothing), and its `waitUntilExit()` can spin forever
/// on a cooperative thread.
package final class ChildProcess: Sendable {
    package let pid: pid_t
    private let status: Task<Int32, Never>
    private let reaped = ReapedFlag()

    /// Starts `arguments[0]` (looked up in PATH when it has no slash) with the given files as its
    /// standard streams. `environment` replaces the whole environment when given.
    package init(_ arguments: [String], environment: [String: String]? = nil, stdin: URL, stdout: URL, stderr: URL) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin.path, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_APPEND, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environmentStrings.forEach { free($0) } }

        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environmentStrings)
        guard result == 0 else {
            throw Subprocess.Failure(description: "could not start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        let spawned = pid
        let reaped = reaped
        // waitpid blocks: it runs on a dispatch thread, never on the cooperative pool. The child is
        // first waited for without being reaped, so that `send` never signals a reused pid.
        status = Task {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var info = siginfo_t()
                    while waitid(P_PID, id_t(spawned), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
                    var raw: Int32 = 0
                    reaped.flag.withLock { reaped in
                        while waitpid(spawned, &raw, 0) == -1 && errno == EINTR {}
                        reaped = true
                    }
                    let signal = raw & 0x7f
                    continuation.resume(returning: signal == 0 ? (raw >> 8) & 0xff : 128 + signal)
                }
            }
        }
    }

    /// Sends `signal` to the process, unless it has already ended.
    package func send(_ signal: Int32) {
        reaped.flag.withLock { reaped in if !reaped { kill(pid, signal) } }
    }

    /// Whether the process has ended (and been reaped).
    package var hasExited: Bool { reaped.flag.withLock { $0 } }

    /// Set, under its lock, when the child is reaped: after that its pid may belong to another process.
    private final class ReapedFlag: Sendable {
        let flag = Mutex(false)
    }

    /// Waits for the process to end and returns its exit status (128 + N when killed by signal N).
    package func exitStatus() async -> Int32 { await status.value }
}
