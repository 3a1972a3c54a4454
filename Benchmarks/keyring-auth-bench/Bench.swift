import ArgumentParser
import Foundation

/// `keyring-auth-bench`: measurements reported as figures, never as pass/fail. Run it under
/// `dbus/with-keyring` (a private bus and a throwaway keyring) and in a release build.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring-auth-bench",
        abstract: "Benchmarks of KeyringAuth against the real Secret Service (run under dbus/with-keyring).",
        subcommands: [All.self, Propagation.self, PropagationListener.self, FanOut.self, StoreWorker.self, StoreCalls.self])
}
