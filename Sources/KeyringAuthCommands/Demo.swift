import ArgumentParser
import CommandLineSupport
import Foundation
import Subprocesses

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play Firebase's shared-keychain walkthrough with two apps, each step in its own process.",
        discussion: """
            Starts the Auth emulator (keyring-auth-emulator), then runs two app identities of one access group \
            as separate keyring-auth processes against the Secret Service: sign in once, both signed in; \
            sign out once, both signed out; back to an unshared keychain; migration of a signed-in user; \
            then live sync: a running app sees the other's sign-out and sign-in as they happen. Uses a fresh API key, cleans up after itself, and exits 1 if any step does not behave as documented.
            """)

    @OptionGroup(title: "Store") var storeOptions: StoreOptions

    @Option(help: "The access group the two apps share.")
    var group = "TEAMID.com.example.group1"

    func validate() throws {
        guard storeOptions.store != .memory else {
            throw ValidationError("The demo runs each app in its own process, which needs the Secret Service; drop --store memory.")
        }
    }

    func run() async throws {
        let emulator = try startEmulator()
        defer {
            emulator.child.send(SIGTERM)
            // With --verbose, the emulator's request log (it never logs a token), after the walkthrough's own output.
            if storeOptions.verbose { FileHandle.standardError.write(Data(emulator.standardError.utf8)) }
        }
        let address: String
        do {
            let prefix = "export FIREBASE_AUTH_EMULATOR_HOST="
            address = String(try await emulator.nextLine(within: .seconds(30)) { $0.hasPrefix(prefix) }.dropFirst(prefix.count))
        } catch {
            throw CLIFailure(.failure, "The emulator did not start: \(error)")
        }
        let player = DemoApp.Player(emulator: "\(address)", storeArguments: storeOptions.arguments)
        let walkthrough = DemoWalkthrough(a: player.app("app-a"), b: player.app("app-b"), group: group)

        print("KeyringAuth demo: two apps share one sign-in through the Secret Service.")
        print("  identity backend: the Auth emulator at http://\(address) (keyring-auth-emulator)")
        print("  keyring: the \(storeOptions.collection) collection; apps \(walkthrough.a.name) and \(walkthrough.b.name), API key \(player.apiKey)")
        print("  every app action below is a separate keyring-auth process, like a separate app launch")

        let failures = await walkthrough.play()
        await walkthrough.cleanUp()

        guard failures == 0 else {
            throw CLIFailure(.failure, "\(failures) step(s) did not behave as documented; see above.")
        }
        print("\nEvery step behaved as documented: 1–5 as Firebase documents its shared keychain, 6 live sync (ours).")
    }

    /// `keyring-auth-emulator` on a free port, its output read line by line.
    private func startEmulator() throws -> LineChannel {
        let path = try EmulatorExecutable.installed()
        do {
            return try LineChannel([path, "--port", "0"] + (storeOptions.verbose ? ["--verbose"] : []))
        } catch {
            throw CLIFailure(.failure, "Cannot start \(path): \(error)")
        }
    }
}
