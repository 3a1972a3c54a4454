import CSecret
import FoundationEssentials
import Logging
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CollectionWatcher {
    /// Starts the watcher's thread, named ``threadName`` before this returns, which runs the main
    /// loop until ``stop()``; it holds the watcher until it ends. Call once, after ``begin()``.
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` when no thread can be started;
    ///   everything is released again.
    func startThread() throws(KeychainError) {
        // Under the lock: a handler that stops the watcher on its own thread waits until the handle is kept.
        let started = thread.withLock { thread -> Int32 in
            do throws(OwnThreadFailure) {
                thread = try OwnThread.start(name: Self.threadName) { self.run() }
                return 0
            } catch {
                return error.code
            }
        }
        guard started == 0 else {
            precondition(g_main_context_acquire(context) != 0, "an unstarted watcher's main context is owned by another thread")
            defer { g_main_context_release(context) }
            finish()
            throw .underlying(
                domain: "SecretKeychain", code: Int(started), message: "no thread could be started to follow the changes")
        }
    }

    /// The name of the watchers' threads, as `/proc/PID/task/TID/comm` shows it (15 bytes at most).
    static let threadName = "keychain-watch"

    /// Ends the thread's main loop and, unless called on the watcher's own thread (from a
    /// handler, or when the bus went away), waits until the thread has unsubscribed and ended.
    func stop() {
        MainLoopQuit.post(loop, on: context)
        guard let thread = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        if thread.isCurrent {
            thread.detach()
        } else {
            thread.join()
        }
    }

    /// The watcher's thread: owns the main context for its whole life and runs its loop.
    private func run() {
        precondition(g_main_context_acquire(context) != 0, "the watcher's main context is owned by another thread")
        defer { g_main_context_release(context) }
        defer { finish() }
        g_main_loop_run(loop)
    }
}
