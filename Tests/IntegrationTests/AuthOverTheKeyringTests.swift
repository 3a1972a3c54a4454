import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// The reference document over the real gnome-keyring: in one process with two `Auth`
    /// instances, and across two processes.
    @Suite struct AuthOverTheKeyring {
        init() throws { _ = try Harness.require() }

        @Test(arguments: Walkthrough.all.map(\.0))
        func referenceWalkthrough(_ scenario: String) async throws {
            let run = try #require(Walkthrough.all.first { $0.0 == scenario }?.1)
            try await run(TwoApps.isolated(store: SecretServiceStore()))
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
    }
}
