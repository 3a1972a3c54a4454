import Dispatch
import Foundation
import Logging
import SecretKeychain
import SystemSupport

// Refreshing the current user's ID token ahead of expiry while the app runs (``TokenRefreshPolicy``),
// without a storm: a random lead per app, and a re-read of the group's item before each refresh.
extension Auth {
    /// The delay before refreshing a token with `remaining` seconds to live, `random` in 0...1 drawn per
    /// app and token: the policy's lead before expiry; but for a token too short-lived for that lead (as
    /// an emulator may issue), a quarter to a half of its remaining life, still spread by `random`, so that
    /// it is not refreshed in a loop and the apps of a group do not all pick one moment. Never negative.
    static func refreshDelay(remaining: Double, policy: TokenRefreshPolicy, random: Double) -> Double {
        let lead = policy.headStart.inSeconds + random * policy.spread.inSeconds
        return max(remaining - lead, remaining * (0.5 - 0.25 * random), 0)
    }

    /// Replaces the scheduled refresh with one for `user`'s token (none for `nil`, or when the policy is
    /// off). `retryAfter` schedules a retry after a failed refresh instead.
    func scheduleTokenRefresh(for user: User?, retryAfter: Double? = nil) {
        state.withLock { scheduleTokenRefresh(for: user, retryAfter: retryAfter, in: &$0) }
    }

    /// ``scheduleTokenRefresh(for:retryAfter:)`` with ``state`` held (a dispatch timer's `cancel` does not block).
    func scheduleTokenRefresh(for user: User?, retryAfter: Double? = nil, in state: inout State) {
        let policy = configuration.tokenRefresh
        var timer: ScheduledRefresh?
        if policy.isEnabled, let user {
            let remaining = user.storedRecord.tokens.expirationDate.timeIntervalSinceNow
            let delay = retryAfter ?? Self.refreshDelay(remaining: remaining, policy: policy, random: Double.random(in: 0...1))
            let source = DispatchSource.makeTimerSource(queue: worker)
            source.schedule(deadline: .now() + delay, leeway: .milliseconds(50))
            source.setEventHandler { [weak self, weak user] in
                guard let self, let user else { return }
                self.refreshAhead(user)
            }
            source.resume()
            timer = ScheduledRefresh(source: source)
        }
        state.scheduledRefresh?.cancel()
        state.scheduledRefresh = timer
    }

    /// The scheduled refresh of `user`'s token, on ``worker``: first the group's item is read again, and a
    /// fresher token another app saved there is adopted instead of refreshing; otherwise the token is
    /// refreshed and saved (which schedules the next refresh). A failure that does not sign the user out
    /// is retried a minute later.
    func refreshAhead(_ user: User) {
        let adopted = transitions.withLock { _ -> Bool in
            guard state.withLock({ $0.currentUser === user && !$0.choiceUnknown }) else { return true }
            let group = state.withLock { $0.group }
            guard let stored = try? Self.readRecord(configuration, in: group), stored.uid == user.uid,
                stored.tokens.expirationDate > user.storedRecord.tokens.expirationDate
            else { return false }
            // Another app refreshed: take its token, as live sync would have.
            user.record.withLock { $0 = stored }
            state.withLock { publish(&$0) }
            return true
        }
        guard !adopted else { return }
        Task { [weak self] in
            guard let self else { return }
            do throws(AuthError) {
                _ = try await user.tokenRefresh.join { () async throws(AuthError) in try await self.refreshTokens(of: user) }
            } catch {
                self.logger.warning("Could not refresh the ID token ahead of expiry; trying again in a minute", metadata: ["error": "\(error.code)"])
                self.state.withLock { state in
                    if state.currentUser === user { self.scheduleTokenRefresh(for: user, retryAfter: 60, in: &state) }
                }
            }
        }
    }
}

/// A scheduled refresh: a dispatch timer, which libdispatch lets any thread cancel (hence `@unchecked`).
struct ScheduledRefresh: @unchecked Sendable {
    let source: any DispatchSourceTimer

    func cancel() { source.cancel() }
}
