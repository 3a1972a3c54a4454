import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import Synchronization

/// The App Check debug secret of a command that reaches the identity backend: with `--app-check-debug-token-stdin`, the
/// first line of standard input (read before the command reads any other line: a password, a token, a code), else the
/// environment's, as `AppCheckDebugProvider` reads it. Never from arguments; never printed or logged.
enum AppCheckDebugSecret {
    /// The variables read, the first set first.
    static let variables = AppCheckDebugProvider.variables

    /// The secret piped in, read once; the App Check made of the secret, and its app, for the failures' messages.
    private static let state = Mutex<(piped: String?, appCheck: AppCheck?, appID: String)>((nil, nil, ""))

    /// The secret: standard input's first line when `piped`, else the environment's; `nil` when there is none.
    ///
    /// - Throws: `ValidationError` when `piped` and standard input is a terminal or its first line is empty.
    static func given(piped: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        guard piped else { return variables.lazy.compactMap { environment[$0] }.first { !$0.isEmpty } }
        if let secret = state.withLock({ $0.piped }) { return secret }
        guard isatty(STDIN_FILENO) != 1 else {
            throw ValidationError(
                "--app-check-debug-token-stdin reads the App Check debug secret from standard input; pipe it in as the first line: "
                    + "printf '%s\\n' \"$SECRET\" | keyring-auth … (or set APP_CHECK_DEBUG_TOKEN)")
        }
        guard let secret = try PipedLines.shared.next("the App Check debug secret"), !secret.isEmpty else {
            throw ValidationError(
                "No App Check debug secret on the first line of standard input; pipe it in first, before any other secret the command reads.")
        }
        state.withLock { $0.piped = secret }
        return secret
    }

    /// Keeps the App Check made for app `appID` (`nil`: no secret was given), for ``refusal(_:)``.
    static func used(_ appCheck: AppCheck?, appID: String) {
        state.withLock { $0.appCheck = appCheck; $0.appID = appID }
    }

    /// Identity Platform's 401 for a request without a valid App Check token (`AuthError.isAppCheckRefusal`), in the
    /// CLI's terms: without a secret, how to give one; with one, why its token was missing or refused.
    static func refusal(_ refused: AuthError) async -> CLIFailure {
        // The library's first sentence names the call; its advice is for Swift apps.
        let said = "\(refused.code.name): " + (refused.message.components(separatedBy: ". ").first ?? refused.message)
        let (appCheck, appID) = state.withLock { ($0.appCheck, $0.appID) }
        guard let appCheck else {
            return CLIFailure(
                .backendUnavailable,
                "\(said). Give the app's App Check debug secret, registered for app \(appID) in the Firebase console (App Check, "
                    + "Apps, Manage debug tokens): in APP_CHECK_DEBUG_TOKEN, or on the first line of standard input with "
                    + "--app-check-debug-token-stdin.")
        }
        do {
            _ = try await appCheck.token(forcingRefresh: false)
            return CLIFailure(
                .backendUnavailable,
                "\(said): the token App Check gave for the debug secret was refused; check that the secret is registered for app "
                    + "\(appID) of this project (--project-id), and that --emulator names the emulator that gave it.")
        } catch let failure as AppCheckError {
            return CLIFailure(.backendUnavailable, "\(said): App Check gave no token for the debug secret. \(failure.message)")
        } catch {
            return CLIFailure(.backendUnavailable, "\(said): App Check gave no token for the debug secret (\(error)).")
        }
    }
}

extension CLIFailure {
    /// An App Check failure: its message, exit 5 (App Check, or the emulator standing in for it, refused the secret or
    /// cannot be reached), or 4 when the keyring could not keep the token.
    init(_ error: AppCheckError) {
        self.init(error.code == .keychain ? .keyringUnavailable : .backendUnavailable, error.message)
    }
}
