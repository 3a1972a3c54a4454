import Foundation
import KeyringAuth
import KeyringTestSupport
import Testing

extension KeyringTests.Broker {
    /// `UserChanged` tells every watcher of a group whenever anything of its user changes, whoever changed it.
    @Suite struct UserChanges {
        /// A sandboxed app watching the group (a Firebase app of its own) is told of another app's profile change made
        /// through the broker, and of a Swift app's made directly in the keyring: not only of sign-ins and new tokens.
        @Test func everyChangeOfTheGroupsUserReachesEveryWatcher() async throws {
            let broker = try await BrokerFixture.start()
            var notesApp = broker.app
            notesApp["appID"] = "1:42:linux:notes"
            let watcher = try await broker.python(as: "com.example.Notes", app: notesApp)
            #expect(try await broker.ask(watcher, "watch") == "ok")
            let other = try await BrokerDriver(broker)
            let user = try await other.dictionary("SignInAnonymously")
            let uid = try #require(user["uid"] as? String)
            #expect(try await broker.nextChange(of: watcher) { $0["uid"] as? String == uid }["displayName"] == nil)

            // Through the broker, by another app: the same user, its name changed.
            try await other.succeed("UpdateProfile", "a{sv}", [["displayName": "Ada"]])
            let renamed = try await broker.nextChange(of: watcher) { $0["displayName"] != nil }
            #expect(renamed["uid"] as? String == uid && renamed["displayName"] as? String == "Ada", "\(renamed)")

            // Directly in the keyring, by a Swift app of the group.
            let swiftApp = try broker.swiftApp()
            let current = try await waitForCurrentUser(of: swiftApp, uid: uid)
            let change = current.createProfileChangeRequest()
            change.displayName = "Grace"
            change.photoURL = URL(string: "https://example.com/grace.png")
            try await change.commitChanges()
            let direct = try await broker.nextChange(of: watcher) { $0["displayName"] as? String == "Grace" }
            #expect(direct["photoURL"] as? String == "https://example.com/grace.png", "\(direct)")

            #expect(await other.finish() == 0)
            #expect(await watcher.finish() == 0, "\(watcher.standardError)")
        }

        /// The Swift app's current user once live sync has brought it in (it starts before the test's sign-in is read).
        private func waitForCurrentUser(of auth: Auth, uid: String) async throws -> User {
            for await user in auth.authStateChanges where user?.uid == uid { return user! }
            throw BrokerTestFailure(description: "the Swift app never had the group's user")
        }
    }
}
