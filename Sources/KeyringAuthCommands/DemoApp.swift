import CommandLineSupport
import Foundation
import Subprocesses

/// One app of the demo: an app identity of its own, each action a `keyring-auth` process of its own.
struct DemoApp: Sendable {
    /// Starts app processes: this same program with an app identity and the store options (and the emulator, to sign in).
    struct Player: Sendable {
        var program = Player.ownExecutable()
        /// Names this run's API key and app IDs, so that no earlier run's items are seen.
        var run = String(UUID().uuidString.prefix(8)).lowercased()
        var emulator: String
        var storeArguments: [String]

        var apiKey: String { "AIza-demo-\(run)" }

        func app(_ name: String) -> DemoApp { DemoApp(name: name, player: self) }

        /// This program's own path, to start the apps with.
        static func ownExecutable() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        }
    }

    /// The part of `show --json`, `sign-in --json` and each `watch --json` user the demo reads.
    struct User: Decodable {
        var uid: String?
    }

    /// A line of `watch --json`.
    struct WatchLine: Decodable {
        var event: String
        var user: User?
    }

    var name: String
    var player: Player

    private var identity: [String] {
        ["--api-key", player.apiKey, "--app-id", "1:42:linux:demo-\(name)-\(player.run)", "--app-name", name]
    }

    /// Starts `keyring-auth watch` of `group` as this app, printing JSON lines.
    func watch(_ group: String) throws -> LineChannel {
        try LineChannel([player.program, "watch", "--group", group] + identity + player.storeArguments + ["--json"])
    }

    /// Runs one `keyring-auth` subcommand as this app; returns its standard output (JSON).
    @discardableResult
    func run(_ arguments: [String], allowing statuses: Set<Int32> = [0]) async throws -> Data {
        let result = try await Subprocess.run(
            player.program, arguments + identity + player.storeArguments + ["--json"], limit: .seconds(60))
        guard statuses.contains(result.status) else {
            throw CLIFailure(
                .failure, "\(name): keyring-auth \(arguments.joined(separator: " ")) exited with \(result.status): "
                    + result.standardError.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result.standardOutput
    }

    /// Runs `sign-in` with `arguments` as this app; returns the uid it printed.
    func signIn(_ arguments: [String]) async throws -> String? {
        Self.user(in: try await run(["sign-in", "--emulator", player.emulator] + arguments))
    }

    /// Who this app sees as signed in when it starts: its current user in its saved scope.
    func sees() async throws -> String? {
        Self.user(in: try await run(["show"], allowing: [0, 3]))
    }

    /// The uid in a command's JSON answer; nil when there is none or the answer is not one.
    private static func user(in output: Data) -> String? {
        (try? JSONDecoder().decode(User.self, from: output))?.uid
    }
}
