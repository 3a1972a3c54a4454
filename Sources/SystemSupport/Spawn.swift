import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The package's one way to start a program, with one policy: it starts as a shell would start it,
/// every signal unblocked and at its default (a dispatch or NIO thread's blocked mask and an ignored
/// SIGPIPE are not inherited), its standard streams from files, and no other descriptor of this
/// process, close-on-exec or not (a connection a thread accepted a moment before stays ours).
///
/// Foundation's `Process` is not used: it spawns from a dispatch worker thread whose blocked signal
/// mask the child inherits (SIGTERM then does nothing), and its `waitUntilExit()` can spin forever
/// on a cooperative thread.
package enum Spawn {
    /// Starts `program` (found on `PATH`) with its standard streams on `/dev/null` and reaps it on a
    /// thread of its own without waiting (`xdg-open` may not return until the browser exits).
    ///
    /// - Returns: Why it could not start, or `nil`.
    package static func detached(_ program: String, _ arguments: [String]) -> String? {
        let devNull = URL(fileURLWithPath: "/dev/null")
        do throws(SpawnFailure) {
            // Reaped by its own waiter when it ends; nothing waits here.
            _ = try ChildProcess([program] + arguments, stdin: devNull, stdout: devNull, stderr: devNull)
            return nil
        } catch {
            return "\(program) could not be started (\(error.reason))"
        }
    }

    /// Replaces this process with the program at `path`, run with `arguments`, its signals reset as
    /// ``ChildProcess`` starts a child's. Returns only when `execv` failed, with why.
    package static func exec(_ path: String, _ arguments: [String]) -> String {
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        pthread_sigmask(SIG_SETMASK, &noSignals, nil)
        // Linux's signals are 1 to 64; SIGKILL, SIGSTOP and glibc's own two refuse a change, harmlessly.
        for signalNumber: Int32 in 1...64 where signalNumber != SIGKILL && signalNumber != SIGSTOP {
            signal(signalNumber, SIG_DFL)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(path, argv)
        return String(cString: strerror(errno))
    }

    /// Closes every descriptor from 3 up in the child: glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// (2.34 and later), which Swift's Glibc module leaves out (it is declared only with `_GNU_SOURCE`);
    /// found once, at run time. Where it is missing, only close-on-exec descriptors are left behind.
    fileprivate static func closeTheRest(in actions: inout posix_spawn_file_actions_t) {
        _ = addCloseFrom?(&actions, 3)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// Applies the policy to a spawn's attributes.
    fileprivate static func applyPolicy(to attributes: inout posix_spawnattr_t) {
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }
}

/// Why a program could not be started.
package struct SpawnFailure: Error, CustomStringConvertible {
    package let description: String
    /// The system's reason alone (`strerror`), or the whole description.
    package let reason: String
    package init(description: String, reason: String? = nil) {
        self.description = description
        self.reason = reason ?? description
    }
}

/// A child process started by ``Spawn``'s policy, waited for on a thread of its own (started before the child, so
/// that no child is left without one), its exit status awaited off the cooperative pool or, in synchronous code,
/// by blocking.
package final class ChildProcess: Sendable {
    package let pid: pid_t
    private let reaped = Reaped()

    /// Starts `arguments[0]` (looked up in PATH when it has no slash) with the given files as its
    /// standard streams. `environment` replaces the whole environment when given.
    ///
    /// - Throws: ``SpawnFailure`` when the program cannot be started, or no thread can be started to wait for it
    ///   (the program is then not started).
    package init(_ arguments: [String], environment: [String: String]? = nil, stdin: URL, stdout: URL, stderr: URL) throws(SpawnFailure) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin.path, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_APPEND, 0)
        Spawn.closeTheRest(in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Spawn.applyPolicy(to: &attributes)

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environmentStrings.forEach { free($0) } }

        // The waiter first, told the child's pid once it runs (0: none was started).
        let started = Started()
        let reaped = reaped
        do throws(OwnThreadFailure) {
            try OwnThread.detach(name: "child-wait") {
                started.ready.wait()
                let spawned = started.pid.withLock { $0 }
                guard spawned > 0 else { return }
                // First waited for without being reaped, so that `send` never signals a reused pid.
                var info = siginfo_t()
                while waitid(P_PID, id_t(spawned), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
                reaped.reap(spawned)
            }
        } catch {
            throw SpawnFailure(description: "could not start \(arguments[0]): \(error.explanation)", reason: error.explanation)
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environmentStrings)
        started.pid.withLock { $0 = result == 0 ? pid : 0 }
        started.ready.signal()
        guard result == 0 else {
            let reason = String(cString: strerror(result))
            throw SpawnFailure(description: "could not start \(arguments[0]): \(reason)", reason: reason)
        }
        self.pid = pid
    }

    /// Sends `signal` to the process, unless it has already ended.
    package func send(_ signal: Int32) {
        reaped.ifRunning { kill(pid, signal) }
    }

    /// Whether the process has ended (and been reaped).
    package var hasExited: Bool { reaped.status != nil }

    /// Waits for the process to end and returns its exit status (128 + N when killed by signal N).
    package func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in reaped.whenReaped { continuation.resume(returning: $0) } }
    }

    /// ``exitStatus()`` for synchronous code: blocks the calling thread until the process has ended.
    /// The wait depends on no other thread of the cooperative pool.
    package func waitBlocking() -> Int32 {
        reaped.ended.wait()
        reaped.ended.signal()
        return reaped.status!
    }

    /// The child's pid, handed to its waiter once it is started.
    private final class Started: Sendable {
        let pid = Mutex<pid_t>(0)
        let ready = DispatchSemaphore(value: 0)
    }

    /// The exit status, set under its lock when the child is reaped (after that its pid may belong to another
    /// process), and who waits for it.
    private final class Reaped: Sendable {
        private let state = Mutex<(status: Int32?, waiting: [@Sendable (Int32) -> Void])>((nil, []))
        /// Signalled once the status is set, for ``ChildProcess/waitBlocking()``.
        let ended = DispatchSemaphore(value: 0)

        var status: Int32? { state.withLock { $0.status } }

        /// Reaps `pid` and gives its status to everyone waiting.
        func reap(_ pid: pid_t) {
            let (status, waiting) = state.withLock { state in
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
                let signal = raw & 0x7f
                let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
                state.status = status
                defer { state.waiting = [] }
                return (status, state.waiting)
            }
            ended.signal()
            for waiter in waiting { waiter(status) }
        }

        /// Runs `body` under the lock unless the child was reaped.
        func ifRunning(_ body: () -> Void) {
            state.withLock { if $0.status == nil { body() } }
        }

        /// Calls `waiter` with the status, now or once the child is reaped.
        func whenReaped(_ waiter: @escaping @Sendable (Int32) -> Void) {
            let status = state.withLock { state -> Int32? in
                if state.status == nil { state.waiting.append(waiter) }
                return state.status
            }
            if let status { waiter(status) }
        }
    }
}
