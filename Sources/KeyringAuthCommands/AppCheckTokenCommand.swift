import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth

/// `keyring-auth app-check token`: the app's current App Check token, the one its processes share in the keyring.
struct AppCheckTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the app's App Check token, for a script's own calls to Firebase's other services.",
        usage: """
            keyring-auth app-check token [--json] \(Usage.identity) \(Usage.backend) \
            \(Usage.store)
            """,
        discussion: """
            The token of the app's debug provider: the one kept in the keyring, which the app's other processes share, \
            while it has five minutes left; else a new one from App Check (the emulator with --emulator or \
            $FIREBASE_AUTH_EMULATOR_HOST) for the debug secret, then kept. The secret comes from APP_CHECK_DEBUG_TOKEN \
            (or AppCheckDebugToken, FIRAAppCheckDebugToken), or with --app-check-debug-token-stdin from the first line of \
            standard input; never from the command line, and it is never printed. Only the token is printed, on one line \
            (--json: {"token", "expirationDate"}): \
            curl -H "X-Firebase-AppCheck: $(keyring-auth app-check token --config app.json)" … \
            Exits 2 without a secret; 5 when App Check refuses the secret or cannot be reached.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let options = try app.appOptions()
        guard let appCheck = try backend.appCheck(for: options, store: storeOptions.makeStore(), logger: storeOptions.logger) else {
            throw ValidationError(
                "No App Check debug secret: set APP_CHECK_DEBUG_TOKEN, or pipe it in with --app-check-debug-token-stdin: "
                    + "printf '%s\\n' \"$SECRET\" | keyring-auth app-check token --app-check-debug-token-stdin …")
        }
        let token = try await reporting { try await appCheck.token(forcingRefresh: false) }
        if output.json {
            printJSON(["token": token.token, "expirationDate": timestamp(token.expirationDate)])
        } else {
            printNow(token.token)
        }
    }
}
