import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Subprocesses
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension KeyringTests {
    /// `keyring-auth sign-in` with a provider's tokens and custom tokens, `link`, `unlink` and
    /// `show --claims`, run as a user runs them (each command a process of its own), against the
    /// bundled emulator and the harness's keyring. Secrets only ever on standard input.
    @Suite struct CLICredentials {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func json(_ result: Subprocess.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result.output)\(result.standardError)")
        }

        private func apps() -> (a: [String], b: [String]) { cli.twoApps(keyPrefix: "cred") }

        @Test func aProxyFromTheEnvironmentIsNeverUsedForTheEmulatorOnLoopback() async throws {
            // A password to a loopback emulator goes in plain HTTP: through a proxy it would leave the process in clear.
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (proxy, proxyPort) = try RawTCP.silentListener()
            defer { close(proxy) }
            var environment = ProcessInfo.processInfo.environment
            for variable in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] {
                environment[variable] = "http://127.0.0.1:\(proxyPort)"
            }
            environment["NO_PROXY"] = nil
            environment["no_proxy"] = nil
            let (a, _) = apps()
            let signedIn = try await cli.run(
                ["sign-in", "--email", "proxy@example.com", "--password-stdin", "--create", "--private", "--emulator", address] + a,
                input: "not-for-a-proxy\n", environment: environment)
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            // Nothing connected to the proxy: its backlog is empty.
            _ = fcntl(proxy, F_SETFL, fcntl(proxy, F_GETFL) | O_NONBLOCK)
            let connection = accept(proxy, nil, nil)
            if connection >= 0 { close(connection) }
            #expect(connection < 0, "the request went to the proxy")
        }

        @Test func aGoogleUserAndACustomTokenUserAreSharedAcrossProcesses() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = apps()
            let group = uniqueGroup().rawValue
            let google = #"{"sub": "g-ada", "email": "ada@example.com", "email_verified": true, "name": "Ada"}"#

            let signedIn = try await cli.run(
                ["sign-in", "--idp", "google.com", "--id-token-stdin", "--access-token-stdin", "--group", group, "--json",
                 "--emulator", address] + a, input: google + "\nya29.fake-access\n")
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let googleUID = try #require(try json(signedIn)["uid"] as? String)
            let signedInAnswer = try json(signedIn)
            #expect(signedInAnswer["providers"] as? [String] == ["google.com"] && signedInAnswer["isNewUser"] as? Bool == true)
            #expect(!signedIn.output.contains("ya29") && !signedIn.output.contains("g-ada\""), "no token echoed")

            // App B, another process, sees the same user in the group.
            let shown = try await cli.run(["show", "--group", group] + b)
            #expect(shown.status == 0 && shown.output.contains("uid: \(googleUID)") && shown.output.contains("sign-in methods: google.com"))

            let token = AuthEmulator.unsignedCustomToken(uid: "server-user-7", claims: ["role": "editor", "seats": 3])
            let custom = try await cli.run(
                ["sign-in", "--custom-token-stdin", "--group", group, "--json", "--emulator", address] + b, input: token + "\n")
            #expect(custom.status == 0, "\(custom.standardError)")
            #expect(try json(custom)["uid"] as? String == "server-user-7")

            // App A now sees the custom-token user, and its claims without the token.
            let claims = try json(try await cli.run(["show", "--group", group, "--claims", "--json"] + a))
            #expect(claims["uid"] as? String == "server-user-7" && claims["signInProvider"] as? String == "custom")
            let decoded = try #require(claims["claims"] as? [String: Any])
            #expect(decoded["role"] as? String == "editor" && decoded["seats"] as? Int == 3)
            #expect(claims["idToken"] == nil && claims["refreshToken"] == nil, "claims, not the token")
            let text = try await cli.run(["show", "--group", group, "--claims"] + a)
            #expect(text.output.contains("sign-in provider: custom") && text.output.contains(#""role":"editor""#))
            #expect(!text.output.contains(String(token.prefix(20))) && !text.output.contains("eyJ"), "no token printed")
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }

        @Test func linkingInOneAppMakesTheUserPermanentInARunningOther() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = apps()
            let group = uniqueGroup().rawValue
            let anonymous = try json(try await cli.run(["sign-in", "--anonymous", "--group", group, "--json", "--emulator", address] + a))
            let uid = try #require(anonymous["uid"] as? String)

            // App B keeps running and follows the group.
            let watch = try LineChannel([cli.program, "watch", "--group", group, "--json"] + b)
            let now = try #require(try JSONSerialization.jsonObject(with: Data(try await watch.nextLine().utf8)) as? [String: Any])
            #expect((now["user"] as? [String: Any])?["isAnonymous"] as? Bool == true)

            let linked = try await cli.run(
                ["link", "--email", "kept@example.com", "--password-stdin", "--json", "--emulator", address] + a, input: "forever-1\n")
            #expect(linked.status == 0, "\(linked.standardError)")
            let linkedAnswer = try json(linked)
            #expect(linkedAnswer["isAnonymous"] as? Bool == false && linkedAnswer["providers"] as? [String] == ["password"])

            let change = try #require(try JSONSerialization.jsonObject(with: Data(try await watch.nextLine().utf8)) as? [String: Any])
            let seen = try #require(change["user"] as? [String: Any])
            #expect(seen["uid"] as? String == uid && seen["isAnonymous"] as? Bool == false && seen["email"] as? String == "kept@example.com")
            watch.child.send(SIGINT)
            #expect(await watch.finish() == 0)

            let github = try await cli.run(
                ["link", "--idp", "github.com", "--access-token-stdin", "--emulator", address] + a, input: #"{"sub": "gh-9"}"# + "\n")
            #expect(github.status == 0 && github.output.contains("password, github.com"), "\(github.output)\(github.standardError)")
            let unlinked = try json(try await cli.run(["unlink", "github.com", "--json", "--emulator", address] + a))
            #expect(unlinked["providers"] as? [String] == ["password"])
            let again = try await cli.run(["unlink", "github.com", "--emulator", address] + a)
            #expect(again.status == 1 && again.standardError.contains("noSuchProvider"), "\(again.standardError)")
            let elsewhere = try await cli.run(["unlink", "password", "--private", "--emulator", address] + a)
            #expect(elsewhere.status == 2 && elsewhere.standardError.contains("use-group"), "\(elsewhere.standardError)")
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }

        @Test func badCredentialsAreRefusedAndNothingIsStored() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, _) = apps()
            let group = uniqueGroup().rawValue
            let signIn = ["sign-in", "--group", group, "--emulator", address] + a

            let noToken = try await cli.run(signIn + ["--idp", "google.com", "--id-token-stdin"], input: "")
            #expect(noToken.status == 2 && noToken.standardError.contains("standard input"), "\(noToken.standardError)")
            let twoNeeded = try await cli.run(signIn + ["--idp", "google.com", "--id-token-stdin", "--access-token-stdin"], input: "{\"sub\": \"x\"}\n")
            #expect(twoNeeded.status == 2 && twoNeeded.standardError.contains("line 2"), "\(twoNeeded.standardError)")
            let badProvider = try await cli.run(signIn + ["--idp", "Google", "--id-token-stdin"], input: "{\"sub\": \"x\"}\n")
            #expect(badProvider.status == 2 && badProvider.standardError.contains("invalidProviderID"), "\(badProvider.standardError)")
            let garbage = try await cli.run(signIn + ["--idp", "google.com", "--id-token-stdin"], input: "garbage\n")
            #expect(garbage.status == 5 && garbage.standardError.contains("invalidCredential"), "\(garbage.standardError)")
            let badCustom = try await cli.run(signIn + ["--custom-token-stdin"], input: "not.a.jwt\n")
            #expect(badCustom.status == 5 && badCustom.standardError.contains("invalidCustomToken"), "\(badCustom.standardError)")
            let huge = try await cli.run(signIn + ["--custom-token-stdin"], input: String(repeating: "x", count: 20_000) + "\n")
            #expect(huge.status == 5 && huge.standardError.contains("invalidCustomToken"), "\(huge.standardError)")
            let onTheCommandLine = try await cli.run(signIn + ["--idp", "google.com", "--id-token", "secret"])
            #expect(onTheCommandLine.status == 2, "tokens are never arguments")
            let twoMethods = try await cli.run(signIn + ["--anonymous", "--custom-token-stdin"], input: "t\n")
            #expect(twoMethods.status == 2)

            #expect(try await cli.run(["show", "--group", group] + a).status == 3, "nothing stored")
            #expect(emulator.accounts.isEmpty)
            await emulator.stop()
        }
    }
}
