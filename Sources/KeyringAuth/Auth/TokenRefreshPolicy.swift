/// When a running ``Auth`` refreshes its user's ID token by itself, ahead of expiry, as Firebase's
/// SDKs schedule it: the new token is saved to the group's item, so the other apps of the group get it
/// through live sync instead of refreshing too.
///
/// Each app refreshes at a random moment between ``headStart`` and ``headStart`` + ``spread`` before
/// expiry, and first re-reads the group's item: the first app of a group to get there refreshes, and
/// the others, seeing the new token (live sync, or that re-read), only schedule the next refresh. So
/// a group of N running apps makes about one refresh per token lifetime, not N.
public struct TokenRefreshPolicy: Hashable, Sendable {
    /// Whether to refresh ahead of expiry at all. Off, a token is refreshed only when
    /// ``User/getIDToken(forcingRefresh:)`` finds it within five minutes of expiry.
    public var isEnabled: Bool
    /// The least time before expiry at which a refresh is made (Firebase: five minutes).
    public var headStart: Duration
    /// Each app adds a random part of this to ``headStart``, so that the apps of a group do not refresh
    /// at one moment.
    public var spread: Duration

    public init(isEnabled: Bool = true, headStart: Duration = .seconds(5 * 60), spread: Duration = .seconds(3 * 60)) {
        self.isEnabled = isEnabled
        self.headStart = headStart
        self.spread = spread
    }

    /// Between five and eight minutes before expiry.
    public static let standard = TokenRefreshPolicy()
    /// Only when `getIDToken()` needs it (short-lived processes, tools).
    public static let disabled = TokenRefreshPolicy(isEnabled: false)
}
