import ArgumentParser
import CProcessControl
import Foundation
import KeyringAuth
import Logging
import SecretKeychain

/// `keyring-auth-broker`: KeyringAuth's `Auth` on the session bus as `io.github.keyringauth.Broker1`,
/// normally started by D-Bus activation (`io.github.keyringauth.Broker1.service`, which `scripts/install` installs).
package struct BrokerCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "keyring-auth-broker",
        abstract: "Serve Firebase sign-in on the session bus as io.github.keyringauth.Broker1, for apps in any language and sandboxed apps.",
        discussion: """
            Started by D-Bus activation at the first call; exits when idle. Signs in with Firebase, or, for an app that names one \
            in its app dictionary (emulatorHost), with an Auth emulator on loopback; its own environment chooses no emulator, \
            --emulator does (for a test session). \
            Stores users in the Secret Service's default collection, where KeyringAuth's Swift apps and keyring-auth find them.
            """)

    @Option(help: ArgumentHelp("Exit after this many seconds without a call or a watching client; 0 never exits.", valueName: "seconds"))
    var idleTimeout: Double = 120

    @Option(help: ArgumentHelp("The longest any one D-Bus call to the Secret Service may take.", valueName: "seconds"))
    var keychainTimeout: Double = 5

    @Option(help: ArgumentHelp(
        "Refresh a signed-in user's ID token this many seconds before it expires, plus up to --refresh-spread more "
            + "(as every app of a group does, so that the group makes about one refresh per expiry).", valueName: "seconds"))
    var refreshAhead: Double = 300

    @Option(help: ArgumentHelp("See --refresh-ahead.", valueName: "seconds"))
    var refreshSpread: Double = 180

    @Option(help: ArgumentHelp("GitHub's address for StartGitHubSignIn (the device flow) and for SignInWithBrowser with github.com (GitHub's web flow): a GitHub Enterprise Server's instead of https://github.com.", valueName: "url"))
    var githubHost: String = "https://github.com"

    @Option(help: ArgumentHelp(
        "An Auth emulator on loopback for every app that names none of its own, instead of Firebase: for a test session "
            + "(CI), whose apps, sandboxed without the network too, then sign in with the emulator.", valueName: "host:port"))
    var emulator: String?

    @Flag(help: "Print the D-Bus interface (introspection XML) and exit.")
    var printInterface = false

    @Flag(help: "Log each call's outcome to standard error (never a secret).")
    var verbose = false

    package init() {}

    /// Runs this process as `keyring-auth-broker` with its arguments, until it exits when idle.
    package static func runAsProgram() -> Never {
        main()
        Foundation.exit(0)
    }

    package func validate() throws {
        guard idleTimeout.isFinite, idleTimeout >= 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout takes 0 (never) to 86400 seconds")
        }
        guard let url = URL(string: githubHost), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--github-host takes an https address, such as https://github.example.com")
        }
        guard keychainTimeout.isFinite, keychainTimeout >= 0.001, keychainTimeout <= 3600 else {
            throw ValidationError("--keychain-timeout takes 0.001 to 3600 seconds")
        }
        for (name, value) in [("--refresh-ahead", refreshAhead), ("--refresh-spread", refreshSpread)] {
            guard value.isFinite, value >= 0, value <= 3600 else { throw ValidationError("\(name) takes 0 to 3600 seconds") }
        }
        _ = try emulatorEndpoint()
    }

    /// `--emulator`'s endpoint, on loopback only, or `nil` without it.
    private func emulatorEndpoint() throws -> IdentityToolkitEndpoint? {
        guard let emulator else { return nil }
        do throws(BrokerError) {
            let host = try BrokerArguments.loopbackEmulator(emulator)
            do throws(AuthError) { return try .emulator(hostAndPort: host) } catch { throw BrokerError(.invalidArgument, error.message) }
        } catch {
            throw ValidationError("--emulator: \(error.message)")
        }
    }

    package func run() throws {
        if printInterface {
            print(BrokerInterface.introspectionXML, terminator: "")
            return
        }
        // Two malloc arenas, unless the environment chose (MALLOC_ARENA_MAX): glibc's default of eight per core keeps, in
        // each, the free memory of its busiest moment, so a service that runs for weeks would sit at the peak of every
        // burst (the soak tests measure it). With the heap's free pages given back after each burst (Activity), the
        // broker's memory is what it holds.
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { _ = kra_limit_malloc_arenas(Activity.mallocArenas) }
        var logger = Logger(label: "keyring-auth-broker") { label in EscapingLogHandler(StreamLogHandler.standardError(label: label)) }
        logger.logLevel = verbose ? .debug : .warning
        // Firebase for every app that names no emulator of its own, unless --emulator names one: FIREBASE_AUTH_EMULATOR_HOST
        // in the broker's environment (a developer's, passed on to the session) must not switch every app's calls to
        // plain HTTP; the service's own command line may.
        let endpoint = (try? emulatorEndpoint()) ?? .production
        let store = SecretServiceStore(configuration: .init(
            timeout: .milliseconds(max(1, Int((keychainTimeout * 1000).rounded()))), logger: logger))
        let broker = Broker(
            store: store, endpoint: endpoint, policy: AccessPolicy(snapGrants: .load()),
            tokenRefresh: TokenRefreshPolicy(
                headStart: .milliseconds(Int((refreshAhead * 1000).rounded())), spread: .milliseconds(Int((refreshSpread * 1000).rounded()))),
            idleTimeout: idleTimeout == 0 ? nil : .milliseconds(Int((idleTimeout * 1000).rounded())),
            gitHubHost: URL(string: githubHost)!, logger: logger)
        let bus: BusServer
        do throws(BrokerStartFailure) {
            bus = try BusServer(handlers: broker.handlers)
            broker.start(on: bus)
            try bus.requestName(BrokerInterface.name)
        } catch {
            FileHandle.standardError.write(Data("keyring-auth-broker: \(error.description)\n".utf8))
            Foundation.exit(1)
        }
        logger.info("Serving", metadata: ["name": "\(BrokerInterface.name)", "backend": "\(endpoint)"])
        bus.run()
    }
}
