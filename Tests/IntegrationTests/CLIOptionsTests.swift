import Foundation
import KeyringTestSupport
import Testing

extension KeyringTests {
    /// What `keyring-auth` accepts and says about itself: `--version`, usage lines, which commands take
    /// which options, and the CLI's own words in errors.
    @Suite struct CLIOptions {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func identity(_ name: String) -> [String] {
            let id = String(UUID().uuidString.prefix(8))
            return ["--api-key", "AIza-opt-\(id)", "--app-id", "1:42:linux:\(name)-\(id)", "--app-name", name]
        }

        @Test func versionPrintsTheVersionAndExitsZero() async throws {
            let result = try await cli.run(["--version"])
            #expect(result.status == 0, "\(result.standardError)")
            let version = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+/) != nil, "semantic version: \(version.debugDescription)")
        }

        @Test func signInTakesPrivateAsTheExplicitFormOfNoGroup() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let app = identity("private-sign-in")
            let signIn = try await cli.run(["sign-in", "--anonymous", "--private", "--emulator", address, "--json"] + app)
            #expect(signIn.status == 0, "\(signIn.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: signIn.standardOutput) as? [String: Any])
            let uid = try #require(answer["uid"] as? String)
            #expect(answer["accessGroup"] is NSNull)
            let show = try await cli.run(["show", "--private", "--json"] + app)
            #expect(show.status == 0 && show.output.contains(uid), "stored in the private scope: \(show.standardError)")

            let both = try await cli.run(["sign-in", "--anonymous", "--private", "--group", uniqueGroup().rawValue, "--emulator", address] + app)
            #expect(both.status == 2 && both.standardError.contains("not both"), "\(both.standardError)")
            #expect(try await cli.run(["sign-out", "--private"] + app).status == 0)
            await emulator.stop()
        }

        @Test func usageLinesNameEachCommandsOptions() async throws {
            let expected: [String: [String]] = [
                "list": ["--json"],
                "show": ["--group", "--private", "--claims", "--show-tokens", "--json", "--config", "--api-key"],
                "sign-in": [
                    "--anonymous", "--email", "--password-stdin", "--idp", "--id-token-stdin", "--access-token-stdin",
                    "--custom-token-stdin", "--group", "--private", "--emulator",
                ],
                "link": ["--email", "--password-stdin", "--idp", "--id-token-stdin", "--access-token-stdin", "--emulator"],
                "unlink": ["<provider>", "--group", "--private", "--emulator"],
                "sign-out": ["--group", "--private"],
                "use-group": ["<group>", "--none", "--migrate"],
                "watch": ["--group", "--json"],
                "doctor": ["--json"],
                "emulator": ["--host", "--port"],
                "demo": ["--group"],
            ]
            for (command, options) in expected {
                let help = try await cli.run([command, "--help"])
                #expect(help.status == 0, "\(command): \(help.standardError)")
                let usage = try #require(
                    help.output.split(separator: "\n").first { $0.hasPrefix("USAGE:") }, "\(command): \(help.output)")
                #expect(usage.contains("keyring-auth \(command)"), "\(usage)")
                for option in options {
                    #expect(usage.contains(option), "\(command)'s usage line names \(option): \(usage)")
                }
            }
        }

        @Test func onlyTheCommandsThatReachTheBackendTakeItsOptions() async throws {
            let app = identity("no-backend")
            for arguments in [
                ["show", "--private"], ["sign-out", "--private"], ["watch", "--group", "TEAMID.example"], ["use-group", "--none"],
                ["list"],
            ] {
                let result = try await cli.run(arguments + ["--emulator=127.0.0.1:9099"] + (arguments == ["list"] ? [] : app))
                #expect(result.status == 2, "\(arguments[0]): \(result.standardError)")
                #expect(result.standardError.contains("Unknown option '--emulator'"), "\(arguments[0]): \(result.standardError)")
                let help = try await cli.run([arguments[0], "--help"])
                #expect(!help.output.contains("--emulator"), "\(arguments[0]) --help offers no --emulator")
            }
            for command in ["sign-in", "link", "unlink"] {
                #expect(try await cli.run([command, "--help"]).output.contains("--emulator"), "\(command)")
            }
        }

        @Test func withoutAProviderTheCLISaysStoreMemory() async throws {
            let withBus = cli.harness.scripts.appendingPathComponent("with-bus").path
            let result = try await Subprocess.run(withBus, [cli.program, "list"])
            #expect(result.status == 4, "\(result.standardError)")
            #expect(result.standardError.contains("--store memory"), "\(result.standardError)")
            #expect(!result.standardError.contains("InMemoryStore"), "library wording: \(result.standardError)")
            #expect(!result.standardError.contains("Failed to set fd limit"), "the harness's bus is quiet: \(result.standardError)")
        }
    }
}
