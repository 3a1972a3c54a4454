import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the signed-in user's ID token, for scripts that call the app's backend.",
        usage: """
            keyring-auth token [--group <group> | --private] [--force-refresh] \(Usage.identity) \(Usage.backend) \
            \(Usage.store)
            """,
        discussion: """
            The user of --group G, --private, or (neither) the app's current scope. The token is refreshed first when it \
            expires within five minutes (always with --force-refresh), and the refreshed tokens are saved, so every app \
            of the group gets them. Only the token is printed, on one line: \
            curl -H "Authorization: Bearer $(keyring-auth token --group G --config app.json)" … \
            Exits 3 when nobody is signed in there; 5 when the backend refuses the refresh (a disabled, deleted or \
            revoked user), and then that user is signed out there, in every app of the group.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions

    @Flag(help: "Refresh the token even when it is fresh.")
    var forceRefresh = false

    func run() async throws {
        let options = try app.appOptions()
        // --group and --private name the scope for this command only: the app's saved choice stays as it is.
        let choices = scope.isExplicit ? AccessGroupChoices.pinned(to: try scope.accessGroup(), forAppID: options.appID) : nil
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend, groupChoices: choices)
        let user = try signedInUser(auth)
        // A user holds its Auth weakly: the Auth must live until the refreshed tokens are saved.
        defer { withExtendedLifetime(auth) {} }
        let token = try await reporting { () async throws in try await user.getIDToken(forcingRefresh: forceRefresh) }
        print(token)
    }
}
