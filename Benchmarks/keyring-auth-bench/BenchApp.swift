import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import SecretKeychain

/// An app signed in anonymously, in an access group of its own, against a bundled emulator started
/// for it: where the benchmarks that need a stored user begin.
struct BenchApp {
    let emulator: AuthEmulator
    let address: AuthEmulator.Address
    let group: String
    let options: AuthAppOptions
    let auth: Auth
    let user: User

    static func signIn(name: String, store: any KeychainStore, liveSync: Bool) async throws -> BenchApp {
        let logger = benchLogger("keyring-auth-bench")
        let emulator = AuthEmulator(configuration: .init(port: 0, logger: logger))
        let address = try await emulator.start()
        let id = String(UUID().uuidString.prefix(8))
        let group = "TEAMID.bench.\(name)-\(id)"
        let options = AuthAppOptions(
            appName: "bench-\(name)", apiKey: "AIza-bench-\(id)", appID: "1:42:linux:bench-\(name)-\(id)", projectID: "demo")
        let auth = Auth(configuration: AuthConfiguration(options: options, store: store, logger: logger, liveSync: liveSync))
        auth.useEmulator(withHost: address.host, port: address.port)
        try auth.useUserAccessGroup(group)
        let user = try await auth.signInAnonymously().user
        return BenchApp(emulator: emulator, address: address, group: group, options: options, auth: auth, user: user)
    }
}

/// A logger that tells warnings and errors only: a benchmark's output is its figures.
func benchLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}
