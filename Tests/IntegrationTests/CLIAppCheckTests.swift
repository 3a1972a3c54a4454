import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Logging
import Subprocesses
import Testing

extension KeyringTests {
    /// `keyring-auth` against a project enforcing App Check on Auth: a debug secret from the environment or standard
    /// input's first line proves each command's requests, `app-check token` prints the token the app's processes share in
    /// the keyring, and the secret is never printed. Against the bundled emulator enforcing App Check, one debug secret
    /// registered.
    @Suite struct CLIAppCheck {
        static let secret = "5B0C3D8E-2F71-4A96-B4E3-7D1A9C0F6E52"
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        /// The bundled emulator enforcing App Check on Auth, `secret` its one registered debug secret.
        private static func enforcingEmulator() async throws -> (AuthEmulator, String) {
            var logger = Logger(label: "IntegrationTests.emulator")
            logger.logLevel = .warning
            let emulator = AuthEmulator(configuration: .init(port: 0, logger: logger, appCheck: .init(enforcesOnAuth: true, debugTokens: [secret])))
            return (emulator, "\(try await emulator.start())")
        }

        /// How many debug exchanges `appID` asked the emulator for, refused ones included.
        private static func exchanges(_ emulator: AuthEmulator, of appID: String) -> Int {
            emulator.appCheckExchanges.filter { $0.appID == appID && $0.method == .exchangeDebugToken }.count
        }

        /// `sign-in` fails without a secret, saying how to give one, and nothing is stored; succeeds with the secret in
        /// the environment and piped in before the password; a secret App Check refuses is said so.
        @Test func signInNeedsTheSecret() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let (a, _) = cli.twoApps(keyPrefix: "appcheck")
            let app = a + ["--emulator", address]
            let appID = a[a.firstIndex(of: "--app-id")! + 1]
            var runs: [Subprocess.Result] = []

            let refused = try await cli.run(["sign-in", "--anonymous", "--private"] + app, environment: Self.environment(nil))
            runs.append(refused)
            #expect(refused.status == 5, "\(refused.standardError)")
            #expect(refused.standardError.contains("Firebase App Check token is invalid"), "\(refused.standardError)")
            #expect(refused.standardError.contains("APP_CHECK_DEBUG_TOKEN") && refused.standardError.contains("--app-check-debug-token-stdin"))
            #expect(try await cli.run(["show", "--private"] + a).status == 3, "nothing stored")
            #expect(Self.exchanges(emulator, of: appID) == 0)

            let fromEnvironment = try await cli.run(
                ["sign-in", "--email", "ada@example.com", "--password-stdin", "--create", "--private", "--verbose"] + app,
                input: "first-password\n", environment: Self.environment(["APP_CHECK_DEBUG_TOKEN": Self.secret]))
            runs.append(fromEnvironment)
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")
            #expect(Self.exchanges(emulator, of: appID) == 1)

            // The secret first, then the password; the token another process kept in the keyring is used.
            let piped = try await cli.run(
                ["sign-in", "--email", "ada@example.com", "--password-stdin", "--app-check-debug-token-stdin", "--private", "--json"] + app,
                input: "\(Self.secret)\nfirst-password\n", environment: Self.environment(nil))
            runs.append(piped)
            #expect(piped.status == 0, "\(piped.standardError)")
            #expect(Self.exchanges(emulator, of: appID) == 1, "the keyring's token")
            let missing = try await cli.run(
                ["sign-in", "--anonymous", "--app-check-debug-token-stdin", "--private"] + app, input: "\n", environment: Self.environment(nil))
            #expect(missing.status == 2 && missing.standardError.contains("No App Check debug secret"), "\(missing.standardError)")

            // An email action carries it too, and a command whose backend options are nested (mfa) reads it first.
            let sent = try await cli.run(["send-oob", "--verify-email"] + app, environment: Self.environment(["AppCheckDebugToken": Self.secret]))
            #expect(sent.status == 0, "\(sent.standardError)")
            let unsent = try await cli.run(["send-oob", "--verify-email"] + app, environment: Self.environment(nil))
            #expect(unsent.status == 5 && unsent.standardError.contains("Firebase App Check token is invalid"), "\(unsent.standardError)")
            let factors = try await cli.run(
                ["mfa", "list", "--app-check-debug-token-stdin", "--private"] + app, input: "\(Self.secret)\n", environment: Self.environment(nil))
            runs += [sent, factors]
            #expect(factors.status == 0, "\(factors.standardError)")
            #expect(Self.exchanges(emulator, of: appID) == 1, "the keyring's token")

            // Another app with a secret App Check refuses: its message, and the 401's.
            let (other, _) = cli.twoApps(keyPrefix: "appcheck-refused")
            let wrong = try await cli.run(
                ["sign-in", "--anonymous", "--private", "--emulator", address] + other,
                environment: Self.environment(["FIRAAppCheckDebugToken": "0000-not-registered"]))
            runs.append(wrong)
            #expect(wrong.status == 5, "\(wrong.standardError)")
            #expect(wrong.standardError.contains("Firebase App Check token is invalid"), "\(wrong.standardError)")
            #expect(wrong.standardError.contains("App Check refused the debug secret with HTTP 403"), "App Check's reason")
            #expect(!wrong.standardError.contains("0000-not-registered"))
            for run in runs { #expect(!run.output.contains(Self.secret) && !run.standardError.contains(Self.secret), "the secret printed") }
        }

        /// `app-check token`: the token, the same one from the keyring the second time (one exchange), `--json`, and its
        /// failures.
        @Test func appCheckTokenIsSharedThroughTheKeyring() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let (a, _) = cli.twoApps(keyPrefix: "appcheck-token")
            let app = a + ["--emulator", address]
            let appID = a[a.firstIndex(of: "--app-id")! + 1]
            let secret = Self.environment(["APP_CHECK_DEBUG_TOKEN": Self.secret])

            let none = try await cli.run(["app-check", "token"] + app, environment: Self.environment(nil))
            #expect(none.status == 2 && none.standardError.contains("No App Check debug secret"), "\(none.standardError)")

            let first = try await cli.run(["app-check", "token", "--verbose"] + app, environment: secret)
            #expect(first.status == 0, "\(first.standardError)")
            let token = first.output.trimmingCharacters(in: .newlines)
            #expect(!token.isEmpty && !token.contains("\n"))
            let second = try await cli.run(
                ["app-check", "token", "--app-check-debug-token-stdin"] + app, input: Self.secret + "\n", environment: Self.environment(nil))
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.output == first.output, "piped in, the same token")
            let json = try await cli.run(["app-check", "token", "--json"] + app, environment: secret)
            let answer = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any], "\(json.standardError)")
            #expect(Set(answer.keys) == ["token", "expirationDate"] && answer["token"] as? String == token)
            let expiry = try #require((answer["expirationDate"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(expiry > Date().addingTimeInterval(30 * 60) && expiry < Date().addingTimeInterval(2 * 3600), "\(expiry)")
            #expect(Self.exchanges(emulator, of: appID) == 1, "one exchange for three processes")

            let (other, _) = cli.twoApps(keyPrefix: "appcheck-token-refused")
            let refused = try await cli.run(
                ["app-check", "token", "--app-check-debug-token-stdin", "--emulator", address] + other, input: "0000-not-registered\n",
                environment: Self.environment(nil))
            #expect(refused.status == 5, "\(refused.standardError)")
            #expect(refused.standardError.contains("App Check refused the debug secret with HTTP 403"), "\(refused.standardError)")
            #expect(refused.output.isEmpty && !refused.standardError.contains("0000-not-registered"))
            for run in [first, second, json] { #expect(!run.standardError.contains(Self.secret) && !run.output.contains(Self.secret)) }
        }

        /// The test's environment without App Check's variables, with `variables` set.
        private static func environment(_ variables: [String: String]?) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            for name in ["AppCheckDebugToken", "FIRAAppCheckDebugToken", "APP_CHECK_DEBUG_TOKEN", "FIREBASE_AUTH_EMULATOR_HOST"] {
                environment[name] = nil
            }
            environment.merge(variables ?? [:]) { $1 }
            return environment
        }
    }
}
