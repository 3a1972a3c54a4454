import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

/// The user the app sees at launch (its saved group choice), for `link`, `reauthenticate` and `unlink`; `--group`/`--private`
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

/// Checks that `link` and `reauthenticate` were given exactly one method; `what` asks for one in the message.
func checkOneMethod(_ credential: CredentialOptions, _ browser: BrowserSignInOptions, saying what: String) throws {
    guard [credential.given, browser.given].filter({ $0 }).count == 1 else {
        throw ValidationError(
            "\(what) (one of): --email E --password-stdin, --idp P --id-token-stdin, --provider ID, "
                + "--google / --oidc ISSUER --provider-id ID with --client-id ID, --github --client-id ID, or --phone NUMBER.")
    }
}

/// What `link` and `reauthenticate` share: the method's secrets read first, then the app's signed-in user, then the
/// credential (the browser opens only once that user is known), which `change` uses on the user. Answers the user, its
/// scope's name and the credential used; nothing stored changes unless `change` succeeds.
func changeAccount(
    app: IdentityOptions, backend: BackendOptions, scope: ScopeOptions, storeOptions: StoreOptions, credential: CredentialOptions,
    browser: BrowserSignInOptions, _ change: (User, AuthCredential) async throws -> Void
) async throws -> (user: User, scope: String, used: AuthCredential) {
    let given = try credential.read()
    let clientSecret = try browser.readSecret()
    let (auth, user, place) = try currentUserForAccountChange(app: app, backend: backend, scope: scope, storeOptions: storeOptions)
    // A user holds its Auth weakly: the Auth must live until the change is saved.
    defer { withExtendedLifetime(auth) {} }
    let logger = storeOptions.logger
    let used = try await reporting { () async throws -> AuthCredential in
        let used = if let given { given.credential } else { try await browser.credential(secret: clientSecret, auth: auth, logger: logger) }
        try await change(user, used)
        return used
    }
    return (user, place, used)
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
        abstract: "Link a sign-in method (an email and password, a provider's tokens, or a provider in the browser) to the app's signed-in user.",
        usage: """
            keyring-auth link (--email <email> --password-stdin | --idp <provider> [--id-token-stdin] [--access-token-stdin] | --provider <id> \
            [--custom-parameter <key=value>]… [--scope <scope>]… [--port <port>] [--browser-timeout <seconds>] [--no-browser] | (--google | \
            --oidc <issuer> --provider-id <id>) --client-id <id> [--client-secret-stdin] [--port <port>] [--browser-timeout <seconds>] \
            [--no-browser] | --github --client-id <id> [--scope <scope>]… | --phone <number> [--port <port>] [--browser-timeout <seconds>] \
            [--no-browser]) [--group <group> | --private] \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)
            """,
        discussion: """
            Links to the user of the app's current scope (its saved group choice; --group or --private \
            only confirm it). An anonymous user becomes permanent, in the stored item, so every app of the group \
            sees it. Secrets are read from standard input, as for sign-in. With --provider (microsoft.com, yahoo.com, …), \
            --google, --oidc or --github the provider's page is completed in the browser as for sign-in (its URL printed \
            on standard error, to open by hand with --no-browser); nobody signed in is found out before the browser \
            opens. With --phone, the number's verification page and then its SMS code, as for sign-in; a number another \
            account has is credentialAlreadyInUse. Exits 3 when nobody is signed in there.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Credential") var credential: CredentialOptions
    @OptionGroup(title: "Link in the browser") var browser: BrowserSignInOptions

    func validate() throws { try checkOneMethod(credential, browser, saying: "Say what to link") }

    func run() async throws {
        let (user, place, linked) = try await changeAccount(
            app: app, backend: backend, scope: scope, storeOptions: storeOptions, credential: credential, browser: browser
        ) { user, linking in _ = try await user.link(with: linking) }
        printAccount(
            user, scope: place, json: output.json,
            message: "Linked \(linked.provider) to \(user.uid) in \(place); its sign-in methods: "
                + "\(user.providerData.map(\.providerID).joined(separator: ", ")).")
    }
}

struct Reauthenticate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign the app's signed-in user in again (an email and password, a provider's tokens, or a provider in the browser), for a change that needs a recent sign-in.",
        usage: """
            keyring-auth reauthenticate (--email <email> --password-stdin | --idp <provider> [--id-token-stdin] [--access-token-stdin] | \
            --provider <id> [--custom-parameter <key=value>]… [--scope <scope>]… [--port <port>] [--browser-timeout <seconds>] [--no-browser] | \
            (--google | --oidc <issuer> --provider-id <id>) --client-id <id> [--client-secret-stdin] [--port <port>] \
            [--browser-timeout <seconds>] [--no-browser] | --github --client-id <id> [--scope <scope>]… | --phone <number> [--port <port>] \
            [--browser-timeout <seconds>] [--no-browser]) [--group <group> | --private] \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)
            """,
        discussion: """
            Firebase's reauthenticate: the user of the app's current scope (as for link) signs in again with one of its \
            sign-in methods, which renews its sign-in time in the stored item, for every app of the group (Firebase asks \
            for a recent sign-in before enrolling a second factor, changing a password or an address, deleting the account). \
            The options are sign-in's; the browser's page as for link. Another account is userMismatch (exit 5), and nothing \
            stored changes. Exits 3 when nobody is signed in there.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Credential") var credential: CredentialOptions
    @OptionGroup(title: "Sign in again in the browser") var browser: BrowserSignInOptions

    func validate() throws { try checkOneMethod(credential, browser, saying: "Say how to sign in again") }

    func run() async throws {
        let (user, place, used) = try await changeAccount(
            app: app, backend: backend, scope: scope, storeOptions: storeOptions, credential: credential, browser: browser
        ) { user, again in _ = try await user.reauthenticate(with: again) }
        printAccount(user, scope: place, json: output.json, message: "Signed \(user.uid) in again with \(used.provider) in \(place).")
    }
}

struct Unlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlink a sign-in method (password, google.com, …) from the app's signed-in user.",
        usage: "keyring-auth unlink <provider> [--group <group> | --private] \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)",
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
