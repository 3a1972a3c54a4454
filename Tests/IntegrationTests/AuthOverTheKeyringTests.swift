import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// The reference document over the real gnome-keyring: in one process with two `Auth`
    /// instances, and across two processes.
    @Suite struct AuthOverTheKeyring {
        init() throws { _ = try Harness.require() }

        @Test(arguments: Walkthrough.all.map(\.0))
        func theScenarioBehavesAsTheReferenceDocuments(_ scenario: String) async throws {
            let run = try #require(Walkthrough.all.first { $0.0 == scenario }?.1)
            try await run(TwoApps.isolated(store: SecretServiceStore()))
        }

        /// In a faked Flatpak from which the Secret Service cannot be reached, an app using a group
        /// is warned once, at launch with a saved group, with the way to share.
        @Test func aGroupInAClosedSandboxIsWarnedAboutOnce() async throws {
            let probe = try Harness.product("auth-probe")
            let namespace = String(UUID().uuidString.prefix(8))
            let group = uniqueGroup().rawValue
            let saved = try await Subprocess.run(probe, [namespace, "app-a", "use-group", group])
            try saved.requireSuccess("auth-probe use-group")
            #expect(!saved.standardError.contains("cannot be shared"), "no sandbox, no warning")

            let marker = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-info-\(namespace)")
            try Data("[Application]\nname=org.example.App\n".utf8).write(to: marker)
            defer { try? FileManager.default.removeItem(at: marker) }
            var flatpak = ProcessInfo.processInfo.environment
            flatpak["FLATPAK_ID"] = "org.example.App"
            flatpak["KEYRING_AUTH_TEST_FLATPAK_INFO"] = marker.path
            let reachable = try await Subprocess.run(probe, [namespace, "app-a", "use-group", group], environment: flatpak)
            #expect(reachable.status == 0 && !reachable.standardError.contains("cannot be shared"), "the provider is reachable: shared")

            // No Secret Service visible from the sandbox (a bus address that leads nowhere stands in for the proxy).
            flatpak["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(marker.path)-no-bus"
            let closed = try await Subprocess.run(probe, [namespace, "app-a", "use-group", group], environment: flatpak)
            let warnings = closed.standardError.components(separatedBy: "cannot be shared").count - 1
            #expect(warnings == 1, "once, at launch; not again for the same group: \(closed.standardError)")
            #expect(closed.standardError.contains("Flatpak (org.example.App)") && closed.standardError.contains("--talk-name=io.github.keyringauth.Broker1"))
        }

        @Test func twoProcessesFollowTheReferenceDocument() async throws {
            let probe = try Harness.product("auth-probe")
            let namespace = String(UUID().uuidString.prefix(8))
            let group = TwoApps.group
            func step(_ app: String, _ command: String, _ argument: String? = nil) async throws -> String {
                let result = try await Subprocess.run(probe, [namespace, app, command] + (argument.map { [$0] } ?? []))
                try result.requireSuccess("auth-probe \(app) \(command)")
                return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            #expect(try await step("app-a", "use-group", group) == "uid=none group=\(group)")
            #expect(try await step("app-b", "use-group", group) == "uid=none group=\(group)")

            let signedIn = try await step("app-a", "sign-in")
            let uid = try #require(signedIn.split(separator: " ").first?.dropFirst("uid=".count))
            #expect(signedIn == "uid=\(uid) group=\(group)")
            #expect(try await step("app-b", "show") == "uid=\(uid) group=\(group)", "B sees A's sign-in after a reload")

            #expect(try await step("app-b", "sign-out") == "uid=none group=\(group)")
            #expect(try await step("app-a", "show") == "uid=none group=\(group)", "A is signed out after a reload")

            #expect(try await step("app-a", "use-group", "none") == "uid=none group=none")
            let privateSignIn = try await step("app-a", "sign-in")
            let privateUID = try #require(privateSignIn.split(separator: " ").first?.dropFirst("uid=".count))
            #expect(privateSignIn == "uid=\(privateUID) group=none")
            #expect(try await step("app-b", "show") == "uid=none group=\(group)", "a private sign-in is not shared")

            #expect(try await step("app-a", "migrate", group) == "uid=\(privateUID) group=\(group)")
            #expect(try await step("app-b", "show") == "uid=\(privateUID) group=\(group)", "the migrated user reaches B")
            #expect(try await step("app-a", "show") == "uid=\(privateUID) group=\(group)")
        }

        /// Sign-in, refresh, profile change and deletion against the bundled emulator over HTTP, with the
        /// user in a group's item of the real keyring: each step reaches the other app at its next launch.
        @Test func anAccountsLifeAgainstTheEmulatorReachesTheOtherAppAtItsNextLaunch() async throws {
            var logger = Logger(label: "IntegrationTests")
            logger.logLevel = .warning
            let emulator = AuthEmulator(configuration: .init(port: 0, tokenLifetime: .seconds(120), logger: logger))
            let address = try await emulator.start()
            let id = String(UUID().uuidString.prefix(8))
            let store = SecretServiceStore()
            func launch(_ app: String) throws -> Auth {
                let options = AuthAppOptions(appName: app, apiKey: "AIza-\(id)", appID: "1:42:linux:\(app)\(id)", projectID: "demo-keyring-auth")
                let auth = Auth(configuration: AuthConfiguration(options: options, store: store))
                auth.useEmulator(withHost: address.host, port: address.port)
                return auth
            }
            let group = TwoApps.group
            let sharedKey = KeychainKey(service: "AIza-\(id)", account: "firebase_auth_firebase_user", accessGroup: try AccessGroup(group))
            func storedIDToken() throws -> String? {
                guard let data = try store.data(for: sharedKey) else { return nil }
                return ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["tokens"] as? [String: Any])?["idToken"] as? String
            }

            let appA = try launch("app-a")
            try appA.useUserAccessGroup(group)
            try launch("app-b").useUserAccessGroup(group)
            let user = try await appA.createUser(withEmail: "shared-\(id)@example.com", password: "together").user
            #expect(try launch("app-b").currentUser?.uid == user.uid)

            let change = user.createProfileChangeRequest()
            change.displayName = "Shared"
            try await change.commitChanges()
            #expect(try launch("app-b").currentUser?.displayName == "Shared")

            let refreshed = try await user.getIDToken()
            #expect(try storedIDToken() == refreshed, "the refreshed token is in the group's item")

            try await user.delete()
            #expect(try launch("app-b").currentUser == nil)
            #expect(try storedIDToken() == nil)
            #expect(emulator.accounts.isEmpty)
            await emulator.stop()
        }
    }
}
