import Foundation
import SystemSupport

// Refreshing ahead of expiry while isTokenAutoRefreshEnabled: at AppCheckRefreshSchedule's date, or after a failure
// its backoff; the refresh takes a token another process received since, so that an app's processes make one exchange.
extension AppCheck {
    /// The first fetch, when auto-refresh is on: the keyring's token, or a new one.
    func startAutoRefresh() {
        guard isTokenAutoRefreshEnabled else { return }
        Task { _ = await self.obtain(.ifStale) }
    }

    func stopRefreshing() {
        state.withLock { $0.scheduled?.cancel(); $0.scheduled = nil }
    }

    func scheduleRefresh(of token: AppCheckToken) {
        let at = AppCheckRefreshSchedule.refreshDate(receivedAt: token.receivedAtDate, expiration: token.expirationDate, now: now())
        schedule(after: at.timeIntervalSince(now()), mode: .refresh(replacing: token.token))
    }

    func scheduleRetry() {
        let failures = state.withLock { state -> Int in
            state.failures += 1
            return state.failures
        }
        schedule(after: AppCheckRefreshSchedule.backoff(failures: failures, jitter: Double.random(in: 0..<1)), mode: .ifStale)
    }

    private func schedule(after seconds: TimeInterval, mode: Mode) {
        guard isTokenAutoRefreshEnabled else { return }
        let scheduled = ScheduledAppCheckRefresh(after: .seconds(max(seconds, 0))) { [weak self] in
            guard let self, self.isTokenAutoRefreshEnabled else { return }
            Task { _ = await self.obtain(mode) }
        }
        state.withLock { state in
            state.scheduled?.cancel()
            state.scheduled = scheduled
        }
    }
}

/// A refresh on the package's deadline timer; cancelled when replaced.
struct ScheduledAppCheckRefresh: Sendable {
    private let token: DeadlineTimer.Token?

    init(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        // The timer's action must be short: it only starts the refresh's task.
        token = try? DeadlineTimer.shared.schedule(after: delay, action)
    }

    func cancel() {
        if let token { DeadlineTimer.shared.cancel(token) }
    }
}
