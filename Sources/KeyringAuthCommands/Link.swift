import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

/// The user the app sees at launch (its saved group choice), for `link` and `unlink`; `--group`/`--private`
/// only confirm that scope, since changing it is `use-group`'s job.
func currentUserForAccountChange(
    app: IdentityOptions, backend: BackendOptions, scope: ScopeOptions, storeOptions: StoreOptions
) throws -> (auth: Auth, user: User, scope: String) {
    let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend)
    let place = scopeName(auth.userAccessGroup)
    if scope.isExplicit, try scope.accessGroup()?.rawValue != auth.userAccessGroup {
        throw CLIFailure(
            .invalidInput,
            "App \(auth.configuration.options.appName) is in \(place), not \(scopeName(scope.group)); "
                + "run `keyring-auth use-group` first, or leave out --group/--private.")
    }
    return (auth, try signedInUser(auth), place)
}

/// The app's current user, or a `nothingStored` failure saying where nothing is stored.
func signedInUser(_ auth: Auth) throws -> User {
    guard let user = auth.currentUser else {
        throw CLIFailure(
            .nothingStored,
            "Nothing stored for app \(auth.configuration.options.appName) in \(scopeName(auth.userAccessGroup)): sign in first.")
    }
    return user
}

/// The user after a change, as `link` and `unlink` print it.
func printAccount(_ user: User, scope: String, json: Bool, message: String) {
    if json {
        printJSON([
            "uid": user.uid, "isAnonymous": user.isAnonymous, "email": nullable(user.email),
            "providers": user.providerData.map(\.providerID),
        ])
    } else {
        printLine(message)
    }
}

struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Link a sign-in method (an email and password, or a provider's tokens) to the app's signed-in user.",
        usage: """
            keyring-auth link (--email <email> --password-stdin | --idp <provider> [--id-token-stdin] [--access-token-stdin]) \
            [--group <group> | --private] \(Usage.identity) [--emulator <host:port>] [--json] \(Usage.store)
            """,
        discussion: """
            Links to the user of the app's current scope (its saved group choice; --group or --private \
            only confirm it). An anonymous user becomes permanent, in the stored item, so every app of the group \
            sees it. Secrets are read from standard input, as for sign-in. Exits 3 when nobody is signed in there.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Credential") var credential: CredentialOptions

    func validate() throws {
        guard credential.given else { throw ValidationError("Say what to link: --email E --password-stdin, or --idp P --id-token-stdin.") }
    }

    func run() async throws {
        let given = try credential.read()
        let (auth, user, place) = try currentUserForAccountChange(app: app, backend: backend, scope: scope, storeOptions: storeOptions)
        guard let given else { return }
        // A user holds its Auth weakly: the Auth must live until the link is saved.
        defer { withExtendedLifetime(auth) {} }
        _ = try await reporting { () async throws in try await user.link(with: given.credential) }
        printAccount(
            user, scope: place, json: output.json,
            message: "Linked \(given.credential.provider) to \(user.uid) in \(place); its sign-in methods: "
                + "\(user.providerData.map(\.providerID).joined(separator: ", ")).")
    }
}

struct Unlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlink a sign-in method (password, google.com, …) from the app's signed-in user.",
        usage: "keyring-auth unlink <provider> [--group <group> | --private] \(Usage.identity) [--emulator <host:port>] [--json] \(Usage.store)",
        discussion: "Unlinks from the user of the app's current scope, as link does. Exits 3 when nobody is signed in there.")

    @Argument(help: ArgumentHelp("The provider ID to unlink, as `show` lists them.", valueName: "provider"))
    var provider: String

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (auth, user, place) = try currentUserForAccountChange(app: app, backend: backend, scope: scope, storeOptions: storeOptions)
        let provider = provider
        // A user holds its Auth weakly: the Auth must live until the change is saved.
        defer { withExtendedLifetime(auth) {} }
        _ = try await reporting { () async throws in try await user.unlink(fromProvider: provider) }
        let remaining = user.providerData.map(\.providerID)
        printAccount(
            user, scope: place, json: output.json,
            message: "Unlinked \(provider) from \(user.uid) in \(place); its sign-in methods: "
                + "\(remaining.isEmpty ? "none" : remaining.joined(separator: ", ")).")
    }
}
