import ArgumentParser
import Foundation
import SecretKeychain

/// `keyring-auth`: inspect and manage Firebase auth state shared through the Secret Service.
struct KeyringAuthCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring-auth",
        abstract: "Inspect and manage Firebase sign-in state shared through the Secret Service.",
        discussion: """
            Exit codes: 0 success; 1 failure; 2 usage error or invalid input (an invalid access group, \
            a malformed config); 3 nothing stored for that key; 4 keyring unavailable or locked; \
            5 identity backend unreachable or refused.

            Tokens are printed only by `show --show-tokens` and `token`, and read only from standard input. Shell completion: \
            keyring-auth --generate-completion-script bash|zsh|fish (installed, with a man page, by the repository's scripts/install).
            """,
        version: Version.current,
        subcommands: [
            List.self, Show.self, Token.self, SignIn.self, Link.self, Unlink.self, SignOut.self, UseGroup.self, Watch.self,
            SendOOB.self, CheckCode.self, ApplyCode.self, ResetPassword.self, Doctor.self, Emulator.self, Demo.self,
        ]
    )
}

/// Runs the command, turning every failure into one line on standard error and an exit code
/// from the table in ``KeyringAuthCLI/configuration``.
@main
enum Main {
    static func main() async {
        if let position = firstArgumentNotInUTF8() {
            printError("argument \(position) is not valid UTF-8; pass every argument as UTF-8 text (check the locale or the script's encoding).")
            exit(ExitStatus.invalidInput.rawValue)
        }
        do {
            var command = try KeyringAuthCLI.parseAsRoot()
            SecretInput.protectProcess()  // a command may hold a stored user's tokens, or read a secret
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

/// Writes `keyring-auth: MESSAGE` on standard error as one line; the message is escaped
/// (``Swift/String/escapedForTerminal``), since errors may echo stored data.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("keyring-auth: \(message.escapedForTerminal)\n".utf8))
}

/// The position (1 for the first argument) of the first command-line argument whose bytes are not
/// valid UTF-8, or `nil`. Swift would turn such bytes into U+FFFD and name something else.
func firstArgumentNotInUTF8() -> Int? {
    for index in 1..<Int(CommandLine.argc) {
        guard let argument = CommandLine.unsafeArgv[index] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
        if String(validating: bytes, as: UTF8.self) == nil { return index }
    }
    return nil
}
