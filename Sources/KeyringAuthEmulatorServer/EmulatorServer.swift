import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuthEmulator
import Logging
import SystemSupport

/// `keyring-auth-emulator`: the bundled Auth emulator, run by `keyring-auth emulator` (which passes on its options)
/// and by `keyring-auth demo`. A program of its own, so that SwiftNIO is not linked into the `keyring-auth` executable.
package struct EmulatorServer: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "keyring-auth emulator",
        abstract: "Run the bundled Auth emulator until interrupted (Ctrl-C).",
        usage: EmulatorOptions.usage)

    @OptionGroup var options: EmulatorOptions

    package init() {}

    package func run() async throws {
        let debugTokens = try options.appCheckDebugTokens(environment: ProcessInfo.processInfo.environment)
        // App Check's settings when asked for, by the option or by debug tokens; else the header is ignored.
        let appCheck = options.appCheck != nil || !debugTokens.isEmpty
            ? AuthEmulator.AppCheckSettings(enforcesOnAuth: options.enforcesAppCheck, debugTokens: debugTokens) : nil
        var logger = Logger(label: "keyring-auth.emulator") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = options.verbose ? .debug : .warning
        let emulator = AuthEmulator(configuration: .init(
            host: options.host, port: options.port, projectID: options.projectID, tokenLifetime: .seconds(options.tokenLifetime),
            settings: .init(allowsAnonymousSignUp: !options.noAnonymous, emailEnumerationProtection: options.emailEnumerationProtection),
            logger: logger, allowsNonLoopback: options.allowNonLoopback, idleTimeout: .seconds(options.idleTimeout),
            maximumConnections: options.maxConnections,
            onOutOfBandCode: { code in
                // The link, as Firebase's emulator prints it, so a person can follow the flow by hand; never a token.
                let whom = code.newEmail.map { "\(code.email) → \($0)" } ?? code.email
                printNow("\(code.requestType) code for \(whom): \(code.oobLink)".escapedForTerminal)
            },
            onVerificationCode: { code in
                // firebase-tools' line in place of the SMS: "To verify the phone number +1…, use the code 123456."
                printNow(code.message.escapedForTerminal)
            },
            recaptcha: options.recaptcha.flatMap { AuthEmulator.StandInRecaptcha.Enforcement(rawValue: $0.uppercased()) }
                .map { AuthEmulator.StandInRecaptcha(enforcement: $0) },
            appCheck: appCheck))
        if let importFile = options.importFile {
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
        let interrupt = try InterruptSignal()  // before the ready lines: a SIGINT sent as soon as they are read is not lost
        printNow("Auth emulator for project \(options.projectID) listening on http://\(address)")
        printNow("export FIREBASE_AUTH_EMULATOR_HOST=\(address)")
        if let appCheck {
            let count = appCheck.debugTokens.count
            printNow("App Check \(appCheck.enforcesOnAuth ? "enforced" : "not enforced") on Auth; \(count) debug token\(count == 1 ? "" : "s") registered")
        }
        await interrupt.wait()
        await emulator.stop()
        if let exportFile = options.exportFile {
            // Test accounts with what signs them in: readable by the user only.
            let data = emulator.exportAccounts(includingPasswords: true)
            guard FileManager.default.createFile(atPath: exportFile, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CLIFailure(.failure, "Cannot write the accounts to \(exportFile).")
            }
            print("Accounts written to \(exportFile).")
        }
        print("Auth emulator stopped.")
    }
}

extension EmulatorServer {
    /// Runs this process as `keyring-auth-emulator` with its arguments: a failure is one line on standard error and
    /// `keyring-auth`'s exit code.
    package static func runAsProgram() async -> Never {
        await runCommandLine(EmulatorServer.self)
    }
}
