import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// Over the harness's provider: a keyring locked at launch does not send an app that chose a
    /// group to its private scope, and a failed `keyring-auth sign-in --group` changes nothing stored.
    @Suite struct StoredStateSafety {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        @Test func aKeyringLockedAtLaunchKeepsTheGroupAndTheUserAppearsOnceUnlocked() async throws {
            let store = SecretServiceStore(configuration: .init(timeout: .seconds(2), unlockTimeout: nil))
            let apps = TwoApps.isolated(store: store)
            let first = apps.launch("app-a")
            try first.useUserAccessGroup(TwoApps.group)
            let user = try await first.signInAnonymously().user

            try await cli.harness.lockLoginCollection()
            var unlocked = false
            defer { if !unlocked { try? cli.harness.unlockLoginCollection() } }
            let launched = apps.launch("app-a")
            let states = ListenerLog()
            launched.addStateDidChangeListener { _, user in states.record(user) }
            #expect(launched.userAccessGroup == TwoApps.group, "the choice is read without the keyring")
            #expect(launched.currentUser == nil)
            #expect(launched.startupError?.keychainError == .locked(collection: "the default alias"))
            #expect(try await states.next() == nil)

            // Unlocking is seen through live sync: gnome-keyring announces every item changed;
            // KWallet announces only CollectionChanged.
            launched.waitForLiveSyncStart()
            #expect(launched.isLiveSyncActive)
            try cli.harness.unlockLoginCollection()
            unlocked = true
            #expect(try await states.next() == user.uid, "the user start-up could not read becomes current")
            #expect(launched.currentUser?.uid == user.uid)
            #expect(launched.startupError == nil)
            let privateItem = StoredUserItem.key(of: apps.options("app-a"), in: nil)
            #expect(try await store.data(for: privateItem) == nil, "nothing was written to the private scope")
        }

        @Test func aFailedSignInIntoAGroupLeavesThePrivateUserAndTheChoice() async throws {
            let emulator = try await startQuietEmulator()
            let address = try #require(emulator.address)
            let id = String(UUID().uuidString.prefix(8))
            let identity = ["--api-key", "AIza-safe-\(id)", "--app-id", "1:42:linux:safe-\(id)", "--app-name", "safe-app"]
            let group = uniqueGroup().rawValue
            func run(_ arguments: [String], input: String = "") async throws -> Subprocess.Result {
                try await cli.run(arguments + identity, input: input)
            }

            let signIn = try await run(
                ["sign-in", "--email", "safe@example.com", "--password-stdin", "--create", "--json", "--emulator", "\(address)"],
                input: "right password")
            #expect(signIn.status == 0, "\(signIn.standardError)")
            let signedIn = try #require(try JSONSerialization.jsonObject(with: signIn.standardOutput) as? [String: Any])
            let uid = try #require(signedIn["uid"] as? String)

            // A wrong password, then a backend that cannot be reached: exit 5 each time, nothing changed.
            for (emulatorAddress, password) in [("\(address)", "WRONG"), ("127.0.0.1:1", "right password")] {
                let failed = try await run(
                    ["sign-in", "--email", "safe@example.com", "--password-stdin", "--group", group, "--emulator", emulatorAddress],
                    input: password)
                #expect(failed.status == 5, "\(failed.output)")
                let shown = try await run(["show", "--private"])
                #expect(shown.status == 0 && shown.output.contains("uid: \(uid)"), "\(shown.output)")
                let current = try await run(["show"])
                #expect(current.output.contains("scope: private"), "the saved choice is unchanged: \(current.output)")
                #expect(try await run(["show", "--group", group]).status == 3)
            }
        }

        @Test func aPlantedInvalidGroupChoiceIsStoredDataNotUserInput() async throws {
            let appID = "1:42:linux:planted-\(UUID().uuidString.prefix(8))"
            let file = try #require(AccessGroupChoices.standard().fileURL(forAppID: appID))
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(#"{"firebase_auth_stored_user_access_group":"not a group"}"#.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }

            let show = try await cli.run(["show", "--api-key", "AIza-planted", "--app-id", appID])
            #expect(show.status == 1, "\(show.output)")
            #expect(show.standardError.contains(file.path) && show.standardError.contains("remove the file"), "\(show.standardError)")
        }
    }
}
