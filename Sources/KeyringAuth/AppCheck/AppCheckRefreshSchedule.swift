import Foundation

/// When App Check tokens are refreshed, as AppCheckCore's refresher: pure functions of the dates, for the tests.
enum AppCheckRefreshSchedule {
    /// A token with less than this left counts as expired (five minutes, as Firebase's).
    static let expiryMargin: TimeInterval = 5 * 60
    /// The soonest a scheduled refresh comes.
    static let minimumDelay: TimeInterval = 60
    static let initialBackoff: TimeInterval = 30
    static let maximumBackoff: TimeInterval = 16 * 60

    /// Whether `token` may be used at `now`, or must be fetched again.
    static func isFresh(_ token: AppCheckToken, at now: Date) -> Bool {
        token.expirationDate.timeIntervalSince(now) >= expiryMargin
    }

    /// When to refresh a token received at `receivedAt` expiring at `expiration`: half its lifetime plus five minutes
    /// after it came, no later than its expiry, and no sooner than a minute from `now`.
    static func refreshDate(receivedAt: Date, expiration: Date, now: Date) -> Date {
        let lifetime = max(expiration.timeIntervalSince(receivedAt), 0)
        let target = min(receivedAt.addingTimeInterval(lifetime / 2 + expiryMargin), expiration)
        return max(target, now.addingTimeInterval(minimumDelay))
    }

    /// The wait before the `failures`-th retry in a row: 30 s, doubling, plus `jitter` (0 to 1 s), at most 16 min.
    static func backoff(failures: Int, jitter: Double) -> TimeInterval {
        guard failures > 0 else { return 0 }
        let doubled = initialBackoff * pow(2, Double(min(failures - 1, 16)))
        return min(doubled + jitter, maximumBackoff)
    }
}
