import ArgumentParser
import Foundation
import KeyringAuthEmulator
import Logging
import Subprocesses

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play Firebase's shared-keychain walkthrough with two apps, each step in its own process.",
        discussion: """
            Starts the Auth emulator in this process, then runs two app identities of one access group \
            as separate keyring-auth processes against the Secret Service: sign in once, both signed in; \
            sign out once, both signed out; back to an unshared keychain; migration of a signed-in user; \
            then live sync: a running app sees the other's sign-out and sign-in as they happen. Uses a fresh API key, cleans up after itself, and exits 1 if any step does not behave as documented.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The access group the two apps share.")
    var group = "TEAMID.com.example.group1"

    func validate() throws {
        guard storeOptions.store == .secretService else {
            throw ValidationError("The demo runs each app in its own process, which needs the Secret Service; drop --store memory.")
        }
    }

    func run() async throws {
        var logger = Logger(label: "keyring-auth.demo") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = storeOptions.verbose ? .debug : .warning
        let emulator = AuthEmulator(configuration: .init(port: 0, logger: logger))
        let address: AuthEmulator.Address
        do throws(AuthEmulatorError) { address = try await emulator.start() } catch {
            throw CLIFailure(.failure, error.description)
        }
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let player = Player(
            program: Self.ownExecutable(), apiKey: "AIza-demo-\(run)", run: run, emulator: "\(address)",
            storeArguments: storeOptions.arguments)
        let a = player.app("app-a"), b = player.app("app-b")

        print("KeyringAuth demo: two apps share one sign-in through the Secret Service.")
        print("  identity backend: the Auth emulator at http://\(address), in this process")
        print("  keyring: the \(storeOptions.collection) collection; apps \(a.name) and \(b.name), API key \(player.apiKey)")
        print("  every app action below is a separate keyring-auth process, like a separate app launch")

        var failures = 0
        /// Asks each app, in a process of its own, whom it sees, and compares with the walkthrough.
        func check(_ expected: [String?], _ meaning: String) async throws {
            var described: [String] = []
            var ok = true
            for (app, want) in zip([a, b], expected) {
                let uid = try await app.sees()
                ok = ok && uid == want
                described.append("\(app.name) sees \(uid ?? "nobody")\(uid == want ? "" : " (expected \(want ?? "nobody"))")")
            }
            if !ok { failures += 1 }
            print("   \(described.joined(separator: ", ")) — \(ok ? "ok" : "NOT AS DOCUMENTED"): \(meaning)")
        }

        do {
            print("\n1. Both apps share auth state in the access group \(group) (useUserAccessGroup).")
            try await a.run(["use-group", group])
            try await b.run(["use-group", group])
            try await check([nil, nil], "nobody is signed in yet")

            print("\n2. Sign in once: \(a.name) signs in anonymously.")
            let uid = try await a.run(["sign-in", "--anonymous", "--group", group])["uid"] as? String
            try await check([uid, uid], "both apps are signed in as the same user")

            print("\n3. Sign out once: \(b.name) signs out.")
            try await b.run(["sign-out", "--group", group])
            try await check([nil, nil], "both apps are signed out")

            print("\n4. Back to an unshared keychain: \(a.name) leaves the group and signs in on its own.")
            try await a.run(["use-group", "--none"])
            let privateUID = try await a.run(["sign-in", "--anonymous"])["uid"] as? String
            try await check([privateUID, nil], "the private sign-in is not shared")

            print("\n5. Migration: \(a.name) carries its signed-in user into the group (use-group --migrate).")
            try await a.run(["use-group", group, "--migrate"])
            try await check([privateUID, privateUID], "the user is shared, still signed in")

            print("\n6. Live sync: \(b.name) keeps running (keyring-auth watch); \(a.name) signs out, then in again.")
            let watch = try b.watch(group)
            defer { watch.child.send(SIGKILL) }
            /// Runs `action` as app-a (none: nothing), then reads app-b's next line and compares it.
            func live(_ action: [String], expecting event: String, _ expectedUID: (_ answer: [String: Any]) -> String?) async throws {
                let started = ContinuousClock.now
                let answer = action.isEmpty ? [:] : try await a.run(action)
                let returned = ContinuousClock.now
                let line = try await watch.nextLine(within: .seconds(20))
                let seenAt = ContinuousClock.now
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
                let (seen, uid) = (object["event"] as? String ?? line, (object["user"] as? [String: Any])?["uid"] as? String)
                let want = expectedUID(answer)
                let ok = seen == event && uid == want
                if !ok { failures += 1 }
                let timing = action.isEmpty ? "" : " \(Self.milliseconds(seenAt - returned)) after \(a.name)'s process returned"
                    + " (\(Self.milliseconds(returned - started)) to run it)"
                print("   \(b.name), still running, sees \(seen)\(uid.map { " \($0)" } ?? "")\(timing) — "
                    + (ok ? "ok" : "NOT AS EXPECTED (\(event) \(want ?? ""))"))
            }
            try await live([], expecting: "now") { _ in privateUID }
            try await live(["sign-out", "--group", group], expecting: "signed-out") { _ in nil }
            try await live(["sign-in", "--anonymous", "--group", group], expecting: "signed-in") { $0["uid"] as? String }
            watch.child.send(SIGINT)
            _ = await watch.finish()
        } catch {
            failures += 1
            print("   the step failed: \(error)")
        }

        print("\nCleaning up: signing out of the group, both apps back to their private scope.")
        _ = try? await a.run(["sign-out", "--group", group], allowing: [0, 3])
        _ = try? await a.run(["use-group", "--none"])
        _ = try? await b.run(["use-group", "--none"])
        await emulator.stop()

        guard failures == 0 else {
            throw CLIFailure(.failure, "\(failures) step(s) did not behave as documented; see above.")
        }
        print("\nEvery step behaved as documented: 1–5 as Firebase documents its shared keychain, 6 live sync (ours).")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.0f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// This program's own path, to start the apps with.
    static func ownExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts app processes: the same program with an app identity and the emulator.
    struct Player: Sendable {
        var program: String
        var apiKey: String
        var run: String
        var emulator: String
        var storeArguments: [String]

        func app(_ name: String) -> App { App(name: name, player: self) }
    }

    struct App: Sendable {
        var name: String
        var player: Player

        private var identity: [String] {
            [
                "--api-key", player.apiKey, "--app-id", "1:42:linux:demo-\(name)-\(player.run)", "--app-name", name,
                "--emulator", player.emulator,
            ]
        }

        /// Starts `keyring-auth watch` of `group` as this app, printing JSON lines.
        func watch(_ group: String) throws -> LineChannel {
            try LineChannel([player.program, "watch", "--group", group] + identity + player.storeArguments + ["--json"])
        }

        /// Runs one `keyring-auth` subcommand as this app and returns its JSON answer.
        @discardableResult
        func run(_ arguments: [String], allowing statuses: Set<Int32> = [0]) async throws -> [String: Any] {
            let result = try await Subprocess.run(
                player.program, arguments + identity + player.storeArguments + ["--json"], limit: .seconds(60))
            guard statuses.contains(result.status) else {
                throw CLIFailure(
                    .failure, "\(name): keyring-auth \(arguments.joined(separator: " ")) exited with \(result.status): "
                        + result.standardError.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return (try? JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any]) ?? [:]
        }

        /// Who this app sees as signed in when it starts: its current user in its saved scope.
        func sees() async throws -> String? {
            try await run(["show"], allowing: [0, 3])["uid"] as? String
        }
    }
}
