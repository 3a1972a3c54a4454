import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Logging
import SecretKeychain
import Subprocesses
import Testing

extension KeyringTests {
    /// `keyring-auth token`, as a script runs it: one process per call, the group's user shared with another
    /// app through the harness's keyring, the bundled emulator as the backend.
    @Suite struct CLIToken {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func apps() -> (a: [String], b: [String]) { cli.twoApps(keyPrefix: "token") }

        private func stored(_ arguments: [String]) async throws -> [String: Any] {
            let shown = try await cli.run(["show", "--show-tokens", "--claims", "--json"] + arguments)
            return try #require(try JSONSerialization.jsonObject(with: shown.standardOutput) as? [String: Any], "\(shown.standardError)")
        }

        private func refreshes(_ emulator: AuthEmulator) -> Int {
            emulator.receivedRequests.filter { $0.operation == "token" }.count
        }

        @Test func aFreshTokenIsPrintedAsStoredAndARefreshedOneIsSavedForTheWholeGroup() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = apps()
            let group = uniqueGroup().rawValue
            let signedIn = try await cli.run(
                ["sign-in", "--email", "script@example.com", "--password-stdin", "--create", "--group", group, "--emulator", address] + a,
                input: "scripted-1\n")
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let uid = try #require(try await stored(["--group", group] + b)["uid"] as? String)

            // Fresh: exactly the stored token, one line, nothing asked of the backend.
            let fresh = try await cli.run(["token", "--group", group, "--emulator", address] + b)
            #expect(fresh.status == 0, "\(fresh.standardError)")
            #expect(fresh.output == (try await stored(["--group", group] + b)["idToken"] as? String ?? "-") + "\n")
            #expect(refreshes(emulator) == 0)

            // The backend gives the account a claim; --force-refresh fetches a token with it, and app A (another
            // process) then holds that token: the refreshed tokens were saved in the group.
            try emulator.setCustomClaims(["role": "admin"], of: uid)
            let forced = try await cli.run(["token", "--group", group, "--force-refresh", "--emulator", address] + b)
            #expect(forced.status == 0 && refreshes(emulator) == 1, "\(forced.standardError)")
            let token = forced.output.trimmingCharacters(in: .newlines)
            let inA = try await stored(["--group", group] + a)
            #expect(inA["idToken"] as? String == token && (inA["claims"] as? [String: Any])?["role"] as? String == "admin")
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }

        @Test func aTokenThatExpiresWithinFiveMinutesIsRefreshedFirst() async throws {
            var logger = Logger(label: "IntegrationTests.emulator")
            logger.logLevel = .warning
            // Every token the emulator issues expires within five minutes.
            let emulator = AuthEmulator(configuration: .init(port: 0, tokenLifetime: .seconds(240), logger: logger))
            let address = "\(try await emulator.start())"
            let (a, _) = apps()
            #expect(try await cli.run(["sign-in", "--anonymous", "--private", "--emulator", address] + a).status == 0)
            let before = try await stored(["--private"] + a)["idToken"] as? String
            let printed = try await cli.run(["token", "--private", "--emulator", address] + a)
            #expect(printed.status == 0 && refreshes(emulator) == 1, "\(printed.standardError)")
            #expect(printed.output == (try await stored(["--private"] + a)["idToken"] as? String ?? "-") + "\n")
            #expect(before != nil)
            await emulator.stop()
        }

        @Test func nobodySignedInExitsThreeAndARefusedRefreshExitsFiveAndSignsTheGroupOut() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = apps()
            let group = uniqueGroup().rawValue
            let nobody = try await cli.run(["token", "--group", group, "--emulator", address] + a)
            #expect(nobody.status == 3 && nobody.output.isEmpty && nobody.standardError.contains("sign in first"), "\(nobody.standardError)")

            #expect(try await cli.run(["sign-in", "--anonymous", "--group", group, "--emulator", address] + a).status == 0)
            let uid = try #require(try await stored(["--group", group] + b)["uid"] as? String)
            try emulator.setAccount(uid, disabled: true)
            let refused = try await cli.run(["token", "--group", group, "--force-refresh", "--emulator", address] + b)
            #expect(refused.status == 5 && refused.output.isEmpty, "\(refused.standardError)")
            #expect(refused.standardError.contains("userDisabled"), "\(refused.standardError)")
            // Signed out for every app of the group: app A finds nothing stored.
            #expect(try await cli.run(["show", "--group", group] + a).status == 3)
            await emulator.stop()
        }

        @Test func anExplicitScopeLeavesTheAppsSavedChoiceAsItIs() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, _) = apps()
            let group = uniqueGroup().rawValue
            // The group has a user; then the app goes back to its private scope (saved as its choice) and signs in there.
            #expect(try await cli.run(["sign-in", "--anonymous", "--group", group, "--emulator", address] + a).status == 0)
            #expect(try await cli.run(["sign-in", "--anonymous", "--private", "--emulator", address] + a).status == 0)
            let privateUID = try #require(try await stored(["--private"] + a)["uid"] as? String)

            let inGroup = try await cli.run(["token", "--group", group, "--force-refresh", "--emulator", address] + a)
            #expect(inGroup.status == 0, "\(inGroup.standardError)")
            #expect(try await stored(["--group", group] + a)["idToken"] as? String == inGroup.output.trimmingCharacters(in: .newlines))
            // Still the private scope, its user untouched.
            let current = try await stored(a)
            #expect(current["uid"] as? String == privateUID && current["accessGroup"] is NSNull)
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }
    }
}
