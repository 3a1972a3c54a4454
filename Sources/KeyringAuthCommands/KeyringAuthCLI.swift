import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

/// `keyring-auth`: inspect and manage Firebase auth state shared through the Secret Service.
package struct KeyringAuthCLI: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "keyring-auth",
        abstract: "Inspect and manage Firebase sign-in state shared through the Secret Service.",
        discussion: """
            Exit codes: 0 success; 1 failure; 2 usage error or invalid input (an invalid access group, \
            a malformed config); 3 nothing stored for that key; 4 keyring unavailable or locked; \
            5 identity backend unreachable or refused (also a provider's token refused before it is sent, as the backend would).

            Tokens are printed only by `show --show-tokens`, `token` and `app-check token`, and read only from standard input \
            (an App Check debug secret also from APP_CHECK_DEBUG_TOKEN; piped, it is the first line). Shell completion: \
            keyring-auth --generate-completion-script bash|zsh|fish (installed, with a man page, by the repository's scripts/install).
            """,
        version: KeyringAuthVersion.current,
        subcommands: [
            List.self, Show.self, Token.self, SignIn.self, MultiFactorCommand.self, Link.self, Reauthenticate.self, UpdatePhone.self, Unlink.self, SignOut.self, UseGroup.self, Watch.self,
            SendOOB.self, CheckCode.self, ApplyCode.self, ResetPassword.self, AppCheckCommand.self, Doctor.self, Emulator.self, Demo.self,
        ]
    )

    package init() {}
}

extension KeyringAuthCLI {
    /// Runs this process as `keyring-auth` with its arguments, turning every failure into one line on standard error
    /// and an exit code from the table in ``KeyringAuthCLI/configuration``.
    package static func runAsProgram() async -> Never {
        await runCommandLine(KeyringAuthCLI.self) { command in
            SecretInput.protectProcess()  // a command may hold a stored user's tokens, or read a secret
            // A piped App Check secret is standard input's first line: read before the command reads any other.
            if let backend = BackendOptions.of(command), backend.appCheckDebugTokenStdin {
                _ = try AppCheckDebugSecret.given(piped: true)
            }
        }
    }
}
