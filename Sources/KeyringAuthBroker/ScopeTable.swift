import KeyringAuth

/// The `Auth`s the broker keeps, one per scope (an app as the broker stores it, and a group), and which apps hold
/// each: a call in progress or a watch holds its scope. One app holds at most ``maximumHeldPerApp`` scopes at once;
/// the broker keeps at most ``capacity``, and makes room by releasing the one used least lately that nobody holds, so
/// that no app, however many Firebase apps it names, keeps another out.
///
/// A scope is also kept only while an app that used it is still connected: once the last app that used it has left
/// and no call holds it, its `Auth` is released (``appLeft(_:)``, ``release(_:by:)``), so that what a client made the
/// broker hold is given back when it leaves.
///
/// An app is a sandboxed caller's verified identity (all its connections), or a host process (``CallerIdentity/app``).
struct ScopeTable {
    static let capacity = 64
    static let maximumHeldPerApp = 16

    private struct Entry {
        let auth: Auth
        /// How many calls and watches of each app hold the scope.
        var holds: [String: Int] = [:]
        /// The apps that used the scope and are still connected.
        var users: Set<String> = []
        var lastUse: UInt64
    }

    private var entries: [AuthScope: Entry] = [:]
    private var uses: UInt64 = 0

    /// The scope's `Auth`, if it is kept.
    subscript(scope: AuthScope) -> Auth? { entries[scope]?.auth }

    /// Holds the scope for `app` and answers its `Auth`, or `nil` when it is not kept (``insert(_:for:by:)`` then).
    mutating func hold(_ scope: AuthScope, by app: String) throws(BrokerError) -> Auth? {
        guard var entry = entries[scope] else { return nil }
        try checkQuota(of: app, adding: scope)
        uses += 1
        entry.holds[app, default: 0] += 1
        entry.users.insert(app)
        entry.lastUse = uses
        entries[scope] = entry
        return entry.auth
    }

    /// Ends one hold of `app` on the scope; answers the scope's `Auth` when that was the last hold and every app that
    /// used the scope has left, for the caller to let go of outside any lock.
    @discardableResult
    mutating func release(_ scope: AuthScope, by app: String) -> Auth? {
        guard var entry = entries[scope], let count = entry.holds[app] else { return nil }
        entry.holds[app] = count > 1 ? count - 1 : nil
        if entry.holds.isEmpty && entry.users.isEmpty { return entries.removeValue(forKey: scope)?.auth }
        entries[scope] = entry
        return nil
    }

    /// `app` has left (its last connection): the scopes only it used and no call holds are released, and their
    /// `Auth`s answered for the caller to let go of outside any lock.
    mutating func appLeft(_ app: String) -> [Auth] {
        var released: [Auth] = []
        for (scope, var entry) in entries where entry.users.contains(app) {
            entry.users.remove(app)
            if entry.users.isEmpty && entry.holds.isEmpty {
                entries[scope] = nil
                released.append(entry.auth)
            } else {
                entries[scope] = entry
            }
        }
        return released
    }

    /// Checks that `app` may hold one more scope, and makes room for it: when the table is full, the scope used
    /// least lately that nobody holds is released, and its `Auth` answered for the caller to let go of outside any lock.
    mutating func makeRoom(for scope: AuthScope, by app: String) throws(BrokerError) -> Auth? {
        try checkQuota(of: app, adding: scope)
        guard entries[scope] == nil, entries.count >= Self.capacity else { return nil }
        guard let idle = entries.filter({ $0.value.holds.isEmpty }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else {
            throw BrokerError(.failed, "The broker's \(Self.capacity) apps and scopes are all in calls and watches of its clients; "
                + "try again when one has ended.")
        }
        return entries.removeValue(forKey: idle)?.auth
    }

    /// Keeps `auth` for the scope, held once by `app`.
    mutating func insert(_ auth: Auth, for scope: AuthScope, by app: String) throws(BrokerError) {
        try checkQuota(of: app, adding: scope)
        uses += 1
        entries[scope] = Entry(auth: auth, holds: [app: 1], users: [app], lastUse: uses)
    }

    private func checkQuota(of app: String, adding scope: AuthScope) throws(BrokerError) {
        guard entries[scope]?.holds[app] == nil else { return }
        let held = entries.values.count { $0.holds[app] != nil }
        guard held < Self.maximumHeldPerApp else {
            throw BrokerError(.failed, "This app already uses \(Self.maximumHeldPerApp) apps and scopes in calls and watches, the most the "
                + "broker gives one app; unwatch one, or call again when a call has ended.")
        }
    }
}
