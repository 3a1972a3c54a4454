import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Subprocesses
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension KeyringTests {
    /// What a backend does with Google's Admin SDK (`firebase-admin`, Python) reaches the apps: app A follows the
    /// group (`keyring-auth watch`, a process of its own), app B asks for a fresh token (`keyring-auth token`, as a
    /// script does), and a refused refresh signs the user out of every app of the group.
    @Suite struct BackendEffects {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private struct Apps {
            let emulator: AuthEmulator
            let address: String
            let group: String
            let a: [String]
            let b: [String]
            let watch: LineChannel
        }

        /// A user signed in to a new group by app B, and app A watching the group, its first line read.
        private func signedInApps(email: String) async throws -> (Apps, uid: String) {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = cli.twoApps(keyPrefix: "backend")
            let group = uniqueGroup().rawValue
            let signedIn = try await cli.run(
                ["sign-in", "--email", email, "--password-stdin", "--create", "--group", group, "--json", "--emulator", address] + b,
                input: "backend-pw-1\n")
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let uid = try #require(try JSONSerialization.jsonObject(with: signedIn.standardOutput) as? [String: Any])["uid"] as? String
            let watch = try LineChannel([cli.program, "watch", "--group", group, "--json"] + a)
            let now = try event(try await watch.nextLine())
            #expect(now.event == "now" && now.uid == uid)
            return (Apps(emulator: emulator, address: address, group: group, a: a, b: b, watch: watch), try #require(uid))
        }

        private func event(_ line: String) throws -> (event: String?, uid: String?) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let user = object["user"] as? [String: Any]
            return (object["event"] as? String, user?["uid"] as? String)
        }

        private func backend(_ action: String, _ uid: String, _ apps: Apps, _ extra: [String] = []) async throws {
            let done = try await AdminSDK.run(["act", action, uid] + extra, emulator: apps.address)
            #expect(done.status == 0 && done.output == "done \(action)\n", "\(done.output)\(done.standardError)")
        }

        private func finish(_ apps: Apps) async {
            apps.watch.child.send(SIGINT)
            #expect(await apps.watch.finish() == 0)
            await apps.emulator.stop()
        }

        /// The refresh app B asks for is refused with `code`; app A, watching, sees the user signed out.
        private func refusedEverywhere(_ apps: Apps, code: String) async throws {
            let refused = try await cli.run(["token", "--group", apps.group, "--force-refresh", "--emulator", apps.address] + apps.b)
            #expect(refused.status == 5 && refused.output.isEmpty && refused.standardError.contains(code), "\(refused.standardError)")
            let seen = try event(try await apps.watch.nextLine())
            #expect(seen.event == "signed-out" && seen.uid == nil)
            #expect(try await cli.run(["show", "--group", apps.group] + apps.a).status == 3)
        }

        @Test func aUserDisabledByTheBackendIsSignedOutOfEveryAppAndCannotSignInAgain() async throws {
            let (apps, uid) = try await signedInApps(email: "disabled@example.com")
            try await backend("disable", uid, apps)
            try await refusedEverywhere(apps, code: "userDisabled")
            let again = try await cli.run(
                ["sign-in", "--email", "disabled@example.com", "--password-stdin", "--group", apps.group, "--emulator", apps.address] + apps.a,
                input: "backend-pw-1\n")
            #expect(again.status == 5 && again.standardError.contains("userDisabled"), "\(again.standardError)")
            await finish(apps)
        }

        @Test func revokedTokensSignTheUserOutOfEveryApp() async throws {
            let (apps, uid) = try await signedInApps(email: "revoked@example.com")
            try await backend("revoke", uid, apps)
            try await refusedEverywhere(apps, code: "userTokenExpired")
            await finish(apps)
        }

        @Test func aUserDeletedByTheBackendIsSignedOutOfEveryApp() async throws {
            let (apps, uid) = try await signedInApps(email: "deleted@example.com")
            try await backend("delete", uid, apps)
            try await refusedEverywhere(apps, code: "userNotFound")
            await finish(apps)
        }

        @Test func claimsSetByTheBackendAreInTheNextTokenOfEveryApp() async throws {
            let (apps, uid) = try await signedInApps(email: "claims@example.com")
            try await backend("claims", uid, apps, [#"{"role": "admin", "seats": 5}"#])
            let token = try await cli.run(["token", "--group", apps.group, "--force-refresh", "--emulator", apps.address] + apps.b)
            #expect(token.status == 0, "\(token.standardError)")
            // App A, watching, gets the new token; what it decodes from it carries the claims.
            let seen = try event(try await apps.watch.nextLine())
            #expect(seen.event == "token-refreshed" && seen.uid == uid)
            let shown = try await cli.run(["show", "--group", apps.group, "--claims", "--json"] + apps.a)
            let claims = try #require(try JSONSerialization.jsonObject(with: shown.standardOutput) as? [String: Any])["claims"] as? [String: Any]
            #expect(claims?["role"] as? String == "admin" && claims?["seats"] as? Int == 5, "\(shown.output)")
            #expect(try await cli.run(["sign-out", "--group", apps.group] + apps.a).status == 0)
            #expect(try event(try await apps.watch.nextLine()).event == "signed-out")
            await finish(apps)
        }
    }
}
