import ArgumentParser
import CommandLineSupport
import Foundation
import SystemSupport

struct Emulator: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run the bundled Auth emulator until interrupted (Ctrl-C).",
        usage: EmulatorOptions.usage,
        discussion: """
            Point apps at it with FIREBASE_AUTH_EMULATOR_HOST=HOST:PORT or --emulator HOST:PORT ([::1]:PORT for IPv6). \
            Accounts live in memory. Email actions (send-oob) are not mailed: each code's link is printed as it is made, \
            and listed at /emulator/v1/projects/PROJECT/oobCodes; phone verification codes are not texted: each is printed \
            ("To verify the phone number +15555550100, use the code 123456.") and listed at \
            /emulator/v1/projects/PROJECT/verificationCodes. App Check's debug and custom token exchanges are served; with \
            --app-check ENFORCE, Auth's calls need one of their tokens, and debug tokens come from APP_CHECK_DEBUG_TOKEN and \
            --app-check-debug-tokens-file, never from the command line. It accepts any API key and deletes every account on an unauthenticated request, \
            so it listens on loopback only (127.0.0.0/8, ::1, localhost) unless --allow-non-loopback is given. \
            The emulator itself is keyring-auth-emulator, installed beside keyring-auth; this command runs it with the same options.
            """)

    @OptionGroup var options: EmulatorOptions

    /// Replaces this process with `keyring-auth-emulator`, given the words that followed `emulator`.
    func run() throws {
        let arguments = CommandLine.arguments
        let passed = arguments.firstIndex(of: "emulator").map { Array(arguments[($0 + 1)...]) } ?? []
        try EmulatorExecutable.exec(passed)
    }
}

/// `keyring-auth-emulator`, the executable beside this one that runs the bundled emulator (it carries SwiftNIO,
/// which `keyring-auth` does not).
enum EmulatorExecutable {
    /// Its path, beside this process's executable.
    ///
    /// - Throws: ``CLIFailure`` naming how to install it, when it is not there.
    static func installed() throws -> String {
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let path = own.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("keyring-auth-emulator").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIFailure(
                .failure,
                "The emulator, \(path), is not installed beside keyring-auth; scripts/install installs both "
                    + "(in a clone of the repository: swift build --product keyring-auth-emulator).")
        }
        return path
    }

    /// Replaces this process with the emulator, run with `arguments`; returns only by throwing.
    ///
    /// - Throws: ``CLIFailure`` when it is not there or cannot be run.
    static func exec(_ arguments: [String]) throws -> Never {
        let path = try installed()
        // A new program keeps the signal mask and ignored signals: Dispatch blocks signals on this thread, and the
        // emulator stops on SIGINT and SIGTERM. It starts with signals as a shell would start it.
        let reason = Spawn.exec(path, arguments)
        throw CLIFailure(.failure, "Cannot run \(path): \(reason). Reinstall keyring-auth (scripts/install installs both).")
    }
}
