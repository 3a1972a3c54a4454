import Foundation
import KeyringAuth

/// The reference document (`firebase-shared-keychain.md`), step by step, with two apps of one
/// group. The unit tests run it over `InMemoryStore`, the integration tests over gnome-keyring.
/// Each step that does not behave as documented throws ``Walkthrough/Mismatch``.
package enum Walkthrough {
    package struct Mismatch: Error, CustomStringConvertible {
        package let description: String
    }

    static func check<Value: Equatable>(
        _ actual: Value, _ expected: Value, _ step: String
    ) throws {
        guard actual == expected else {
            throw Mismatch(description: "\(step): expected \(expected), got \(actual)")
        }
    }

    /// Sign in once, signed in everywhere (after a reload); sign out once, signed out everywhere.
    /// B runs with live sync off, as Firebase's apps do; `LiveSyncTests` show it on.
    package static func signInOnceSignOutOnce(_ apps: TwoApps) async throws {
        let group = TwoApps.group
        let appA = apps.launch("app-a"), appB = apps.launch("app-b", liveSync: false)
        try appA.useUserAccessGroup(group)
        try appB.useUserAccessGroup(group)
        try check(appA.userAccessGroup, group, "A's access group")

        let signedIn = try await appA.signInAnonymously().user
        try check(appA.currentUser?.uid, signedIn.uid, "A signed in")
        try check(try appB.getStoredUser(forAccessGroup: group)?.uid, signedIn.uid, "B's stored user")
        try check(appB.currentUser?.uid, nil, "B before a reload (live sync off: Firebase's behaviour)")

        let appBRelaunched = apps.launch("app-b")
        try check(appBRelaunched.userAccessGroup, group, "B's group choice after a restart")
        try check(appBRelaunched.currentUser?.uid, signedIn.uid, "B's first read after a restart")

        try appBRelaunched.signOut()
        try check(appBRelaunched.currentUser?.uid, nil, "B signed out")
        try check(apps.launch("app-a").currentUser?.uid, nil, "A after a reload")
        try check(try appA.getStoredUser(forAccessGroup: group)?.uid, nil, "the group's stored user")
    }

    /// Back to an unshared keychain: nothing is cleared, and a new sign-in stays private.
    package static func backToUnshared(_ apps: TwoApps) async throws {
        let group = TwoApps.group
        let appA = apps.launch("app-a"), appB = apps.launch("app-b")
        try appA.useUserAccessGroup(group)
        let shared = try await appA.signInAnonymously().user

        try appA.useUserAccessGroup(nil)
        try check(appA.userAccessGroup, nil, "A's access group")
        // facts.md §1, step 3: the user stored in the new scope (the private item, empty here) becomes current.
        try check(appA.currentUser?.uid, nil, "A's current user after leaving the group")
        try check(try appA.getStoredUser(forAccessGroup: group)?.uid, shared.uid, "the group's user (leaving clears nothing)")

        let privateUser = try await appA.signInAnonymously().user
        try check(try appA.getStoredUser(forAccessGroup: nil)?.uid, privateUser.uid, "A's private user")
        try check(try appB.getStoredUser(forAccessGroup: group)?.uid, shared.uid, "the group keeps its own user")
        try check(try appB.getStoredUser(forAccessGroup: nil)?.uid, nil, "B's private item")
    }

    /// Migration of a signed-in user: two notifications, nil then the user.
    package static func migration(_ apps: TwoApps) async throws {
        let group = TwoApps.group
        let appA = apps.launch("app-a")
        let user = try await appA.signInAnonymously().user
        let states = ListenerLog(), tokens = ListenerLog()
        appA.addStateDidChangeListener { _, user in states.record(user) }
        appA.addIDTokenDidChangeListener { _, user in tokens.record(user) }

        try check(try appA.getStoredUser(forAccessGroup: group)?.uid, nil, "the group before migrating")
        try appA.useUserAccessGroup(group)
        try check(appA.currentUser?.uid, nil, "A after switching to the shared keychain")
        try check(try appA.getStoredUser(forAccessGroup: nil)?.uid, nil, "A's private item after switching")
        try await appA.updateCurrentUser(user)

        try check(appA.currentUser?.uid, user.uid, "A after updateCurrentUser")
        try check(await states.events(after: appA), [user.uid, nil, user.uid], "state notifications")
        try check(await tokens.events(after: appA), [user.uid, nil, user.uid], "ID-token notifications")
        let appB = apps.launch("app-b")
        try appB.useUserAccessGroup(group)
        try check(appB.currentUser?.uid, user.uid, "B in the group")
    }

    /// The opt-in migration: the user is copied into the group and stays signed in.
    package static func optInMigration(_ apps: TwoApps) async throws {
        let group = TwoApps.group
        let appA = apps.launch("app-a")
        let user = try await appA.signInAnonymously().user
        let states = ListenerLog()
        appA.addStateDidChangeListener { _, user in states.record(user) }

        try appA.useUserAccessGroup(group, migratingCurrentUser: true)
        try check(appA.currentUser?.uid, user.uid, "A after migrating")
        try check(try appA.getStoredUser(forAccessGroup: group)?.uid, user.uid, "the group's user")
        try check(try appA.getStoredUser(forAccessGroup: nil)?.uid, nil, "A's private item")
        try check(await states.events(after: appA), [user.uid], "state notifications (none after registration)")
    }

    /// Every scenario, by name.
    package static let all: [(String, @Sendable (TwoApps) async throws -> Void)] = [
        ("sign in once, sign out once", signInOnceSignOutOnce),
        ("back to an unshared keychain", backToUnshared),
        ("migration", migration),
        ("opt-in migration", optInMigration),
    ]
}
