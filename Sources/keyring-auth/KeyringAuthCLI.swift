import ArgumentParser
import Foundation

/// `keyring-auth`: inspect and manage Firebase auth state shared through the Secret Service.
struct KeyringAuthCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring-auth",
        abstract: "Inspect and manage Firebase sign-in state shared through the Secret Service.",
        discussion: """
            Exit codes: 0 success; 1 failure; 2 usage error or invalid input (an invalid access group, \
            a malformed config); 3 nothing stored for that key; 4 keyring unavailable or locked; \
            5 identity backend unreachable or refused.

            Tokens are printed only by `show --show-tokens`. Shell completion: \
            keyring-auth --generate-completion-script bash|zsh|fish.
            """,
        subcommands: [
            List.self, Show.self, SignIn.self, SignOut.self, UseGroup.self, Watch.self, Doctor.self, Emulator.self,
            Demo.self,
        ]
    )
}

/// Runs the command, turning every failure into one line on standard error and an exit code
/// from the table in ``KeyringAuthCLI/configuration``.
@main
enum Main {
    static func main() async {
        do {
            var command = try KeyringAuthCLI.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            printError(failure.message)
            exit(failure.status.rawValue)
        } catch {
            let code = KeyringAuthCLI.exitCode(for: error)
            if code == .success {
                // --help, --version, completion scripts.
                print(KeyringAuthCLI.fullMessage(for: error))
                exit(0)
            }
            // Usage errors: argument-parser's one-line message, our exit code for invalid input.
            let message = KeyringAuthCLI.message(for: error)
            if !message.isEmpty { printError(message.replacingOccurrences(of: "\n", with: " ")) }
            exit(code == .validationFailure ? ExitStatus.invalidInput.rawValue : code.rawValue)
        }
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("keyring-auth: \(message)\n".utf8))
}
