import Logging
import Synchronization

/// One token refresh at a time for a user: the first caller starts it, every caller that arrives while
/// it runs waits for it and gets its result, so concurrent `getIDToken` calls (and the refresh ahead of
/// expiry) send one request. It runs in a task of its own: a caller that is cancelled stops waiting,
/// the others still get the result.
final class SharedTokenRefresh: Sendable {
    private struct Running {
        let task: Task<Result<AuthTokens, AuthError>, Never>
        /// How many callers wait for it, the first included (for the tests).
        var callers: Int
    }
    private let running = Mutex<Running?>(nil)

    /// The result of the refresh under way, or of `refresh` started now when none is. A caller that joins a
    /// refresh under way is logged at debug level to `logger`.
    func join(
        logger: Logger? = nil, _ refresh: @escaping @Sendable () async throws(AuthError) -> AuthTokens
    ) async throws(AuthError) -> AuthTokens {
        let (task, joined) = running.withLock { running in
            if running != nil {
                running!.callers += 1
                return (running!.task, true)
            }
            // Cleared by the task itself, under the lock: it cannot end before it is stored here.
            let task = Task { [self] () -> Result<AuthTokens, AuthError> in
                defer { self.running.withLock { $0 = nil } }
                do throws(AuthError) { return .success(try await refresh()) } catch { return .failure(error) }
            }
            running = Running(task: task, callers: 1)
            return (task, false)
        }
        if joined { logger?.debug("Joined the token refresh under way") }
        return try await task.value.get()
    }

    /// How many callers wait for the refresh under way (0 when none runs).
    var callers: Int { running.withLock { $0?.callers ?? 0 } }
}
