import Dispatch

extension DispatchQueue {
    /// Runs `body` on this queue and resumes the caller with what it returns or throws.
    ///
    /// The bridge from `async` code to a call that blocks (D-Bus, a lock held for long): `body`
    /// runs on one of the queue's threads, never on Swift's cooperative thread pool, and the caller
    /// is suspended, not blocked, until it is done. It is not cancelled with the calling task:
    /// `body` must return by itself, within a bounded time.
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
