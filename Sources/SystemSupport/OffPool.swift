import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The package's one way to run blocking work off Swift's cooperative thread pool: a thread of its
/// own (``OwnThread``) or a dispatch queue (`DispatchQueue.run(_:)`), the caller suspended, not
/// blocked, until the work is done. No other file of the package starts a thread
/// (`scripts/check-concurrency-article` keeps it so).
package enum OwnThread {
    /// Runs `body` on a new thread named `name` and resumes the caller with what it returns.
    ///
    /// Not cancelled with the calling task: `body` must return by itself (a cancellation handler
    /// of the caller can make it return early).
    ///
    /// - Throws: ``OwnThreadFailure`` when no thread can be started (the system, or a service's task limit such as
    ///   systemd's `TasksMax`, is out of threads); `body` is then released unrun. A failure of this call only.
    package static func run<Success: Sendable>(
        name: String, _ body: @escaping @Sendable () -> Success
    ) async throws(OwnThreadFailure) -> Success {
        let outcome: Result<Success, OwnThreadFailure> = await withCheckedContinuation { continuation in
            do throws(OwnThreadFailure) {
                try detach(name: name) { continuation.resume(returning: .success(body())) }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try outcome.get()
    }

    /// Starts `body` on a new thread named `name` that nobody waits for.
    ///
    /// - Throws: ``OwnThreadFailure`` when no thread can be started; `body` is then released unrun.
    package static func detach(name: String, _ body: @escaping @Sendable () -> Void) throws(OwnThreadFailure) {
        try start(name: name, body).detach()
    }

    /// Starts `body` on a new thread named `name` (named before `body` runs, and before this returns);
    /// the handle joins or detaches it.
    ///
    /// - Throws: ``OwnThreadFailure`` when no thread can be started; `body` is then released unrun.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(OwnThreadFailure) -> Handle {
        let work = Work(name: String(name.utf8.prefix(15)) ?? "thread", body: body)
        let retained = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { retained in
            let work = Unmanaged<Work>.fromOpaque(retained!).takeRetainedValue()
            _ = OwnThread.setThreadName?(pthread_self(), work.name)
            work.body()
            return nil
        }, retained)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(retained).release()
            throw OwnThreadFailure(code: result)
        }
        // Also from here, so that the name shows once this returns, whether or not the thread has run yet.
        _ = setThreadName?(thread, work.name)
        return Handle(thread)
    }

    /// A started thread, which its owner joins or detaches once.
    package struct Handle: Sendable {
        private let thread: pthread_t

        fileprivate init(_ thread: pthread_t) { self.thread = thread }

        /// Whether the calling thread is this one.
        package var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

        /// Waits until the thread has ended. Never call it on the thread itself (``isCurrent``).
        package func join() { pthread_join(thread, nil) }

        /// Lets the thread end by itself, its resources released then.
        package func detach() { pthread_detach(thread) }
    }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private typealias SetThreadName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    /// glibc's `pthread_setname_np`, which Swift's Glibc module leaves out (it is declared only with
    /// `_GNU_SOURCE`); found once, at run time. Where it is missing, threads keep their inherited name.
    /// Names show in `/proc/PID/task/TID/comm`, 15 bytes at most.
    private static let setThreadName: SetThreadName? = dlsym(nil, "pthread_setname_np").map {
        unsafeBitCast($0, to: SetThreadName.self)
    }
}

/// No thread could be started: `pthread_create`'s error number.
package struct OwnThreadFailure: Error, Sendable, CustomStringConvertible {
    package let code: Int32
    package var description: String { String(cString: strerror(code)) }
    /// The failure in a sentence that says what to do, for the error of the call that needed the thread.
    package var explanation: String {
        "no thread could be started (\(description)): the system or this service's task limit is out of threads; try again when fewer run"
    }
}

extension DispatchQueue {
    /// Runs `body` on this queue and resumes the caller with what it returns or throws.
    ///
    /// The bridge from `async` code to a call that blocks (D-Bus, a lock held for long) where the
    /// calls must keep an order or share a bounded set of threads: `body` runs on one of the queue's
    /// threads, never on Swift's cooperative thread pool, and the caller is suspended, not blocked,
    /// until it is done. It is not cancelled with the calling task: `body` must return by itself,
    /// within a bounded time.
    ///
    /// - Throws: What `body` throws.
    package func run<Success: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Success
    ) async throws(Failure) -> Success {
        let outcome: Result<Success, Failure> = await withCheckedContinuation { continuation in
            self.async { continuation.resume(returning: Result(catching: body)) }
        }
        return try outcome.get()
    }
}
