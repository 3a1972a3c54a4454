import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

struct UseGroup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use-group",
        abstract: "Switch the app to access group G, or back to its private scope with --none.",
        usage: "keyring-auth use-group (<group> [--migrate] | --none) \(Usage.identity) [--json] \(Usage.store)",
        discussion: """
            Firebase's useUserAccessGroup: the choice is saved for the app's next launch, the group's \
            user becomes current, and leaving the private scope signs the private user out — unless \
            --migrate carries the signed-in private user into the group.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The access group, for example TEAMID.com.example.group1.")
    var group: String?

    @Flag(help: "Go back to the app's private scope.")
    var none = false

    @Flag(help: "Carry the signed-in private user into the group instead of signing it out.")
    var migrate = false

    func validate() throws {
        guard (group != nil) != none else { throw ValidationError("Give a group, or --none.") }
        guard !(migrate && none) else { throw ValidationError("--migrate goes with a group.") }
        _ = try group.map(validatedAccessGroup)
    }

    func run() async throws {
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger)
        try await reporting { try auth.useUserAccessGroup(group, migratingCurrentUser: migrate) }
        let uid = auth.currentUser?.uid
        if output.json {
            printJSON(["accessGroup": nullable(group), "uid": nullable(uid)])
        } else {
            printLine("App \(auth.configuration.options.appName) now uses \(scopeName(group)); current user: \(uid ?? "none").")
        }
    }
}
