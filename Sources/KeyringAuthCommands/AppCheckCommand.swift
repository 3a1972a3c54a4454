import ArgumentParser

/// `keyring-auth app-check`: the app's App Check tokens.
struct AppCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-check",
        abstract: "The app's App Check token, for a script's own calls to Firebase's other services.",
        subcommands: [AppCheckTokenCommand.self])
}
