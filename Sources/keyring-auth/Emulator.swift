import ArgumentParser
import Foundation
import KeyringAuthEmulator
import Logging

struct Emulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run the bundled Auth emulator until interrupted (Ctrl-C).",
        discussion: """
            Point apps at it with FIREBASE_AUTH_EMULATOR_HOST=HOST:PORT or --emulator HOST:PORT ([::1]:PORT for IPv6). \
            Accounts live in memory. Email actions (send-oob) are not mailed: each code's link is printed as it is made, \
            and listed at /emulator/v1/projects/PROJECT/oobCodes. It accepts any API key and deletes every account on an unauthenticated request, \
            so it listens on loopback only (127.0.0.0/8, ::1, localhost) unless --allow-non-loopback is given.
            """)

    @Option(help: "The address to listen on: a loopback address unless --allow-non-loopback.")
    var host = "127.0.0.1"

    @Flag(help: "Allow a --host other than loopback. Anything on the network can then use the emulator, with any API key.")
    var allowNonLoopback = false

    @Option(help: "Close a connection after this many seconds without traffic.")
    var idleTimeout = 60

    @Option(name: .customLong("max-connections"), help: "Close new connections while this many are open.")
    var maxConnections = 256

    @Option(help: "The port; 0 picks a free one.")
    var port = 9099

    @Option(name: .customLong("project-id"), help: "The project the tokens are issued for.")
    var projectID = "demo-keyring-auth"

    @Option(help: "How long ID tokens last, in seconds.")
    var tokenLifetime = 3600

    @Flag(help: "Refuse anonymous sign-up (OPERATION_NOT_ALLOWED).")
    var noAnonymous = false

    @Flag(help: "Answer INVALID_LOGIN_CREDENTIALS for both a wrong password and an unknown email.")
    var emailEnumerationProtection = false

    @Option(name: .customLong("import"), help: "An accounts JSON file to load at start.")
    var importFile: String?

    @Flag(help: "Log each request (method, path, status) to standard error.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        guard (1...AuthEmulator.maximumTokenLifetimeSeconds).contains(tokenLifetime) else {
            throw ValidationError("--token-lifetime takes 1 to \(AuthEmulator.maximumTokenLifetimeSeconds) seconds (366 days)")
        }
        guard idleTimeout > 0, maxConnections > 0 else { throw ValidationError("--idle-timeout and --max-connections take a positive number") }
    }

    func run() async throws {
        var logger = Logger(label: "keyring-auth.emulator") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .debug : .warning
        let emulator = AuthEmulator(configuration: .init(
            host: host, port: port, projectID: projectID, tokenLifetime: .seconds(tokenLifetime),
            settings: .init(allowsAnonymousSignUp: !noAnonymous, emailEnumerationProtection: emailEnumerationProtection),
            logger: logger, allowsNonLoopback: allowNonLoopback, idleTimeout: .seconds(idleTimeout),
            maximumConnections: maxConnections,
            onOutOfBandCode: { code in
                // The link, as Firebase's emulator prints it, so a person can follow the flow by hand; never a token.
                printNow("\(code.requestType) code for \(code.email): \(code.oobLink)".escapedForTerminal)
            }))
        if let importFile {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: importFile)) } catch {
                throw CLIFailure(.invalidInput, "Cannot read \(importFile): \(error.localizedDescription)")
            }
            do throws(AuthEmulatorError) { try emulator.importAccounts(data) } catch {
                throw CLIFailure(.invalidInput, "\(importFile): \(error)")
            }
        }
        let address: AuthEmulator.Address
        do throws(AuthEmulatorError) { address = try await emulator.start() } catch {
            switch error {
            case .hostDoesNotResolve: throw CLIFailure(.invalidInput, error.description)
            case .notLoopback: throw CLIFailure(.invalidInput, error.description + " (keyring-auth: --allow-non-loopback.)")
            case .cannotListen: throw CLIFailure(.failure, error.description + " (keyring-auth: --port.)")
            default: throw CLIFailure(.failure, error.description)
            }
        }
        printNow("Auth emulator for project \(projectID) listening on http://\(address)")
        printNow("export FIREBASE_AUTH_EMULATOR_HOST=\(address)")
        await waitForInterrupt()
        await emulator.stop()
        print("Auth emulator stopped.")
    }
}
