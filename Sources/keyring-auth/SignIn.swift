import ArgumentParser
import Foundation
import KeyringAuth
import SecretKeychain

struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign the app in, anonymously or with email and password, in --group G or --private.",
        usage: """
            keyring-auth sign-in (--anonymous | --email <email> --password-stdin [--create]) [--group <group> | --private] \
            \(Usage.identity) [--emulator <host:port>] [--json] \(Usage.store)
            """,
        discussion: """
            With --group G the app ends up in G as useUserAccessGroup does (leaving its private \
            scope signs its private user out); with --private (the same as giving neither), in its private scope. The backend is asked \
            first: a sign-in that fails changes nothing stored. The password is read from standard \
            input, never from the command line.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Sign in anonymously (an already anonymous user stays signed in).")
    var anonymous = false

    @Option(help: "Sign in with this email address; the password comes from standard input.")
    var email: String?

    @Flag(help: "Read the password from standard input (required with --email).")
    var passwordStdin = false

    @Flag(help: "With --email: create the account first.")
    var create = false

    func validate() throws {
        guard anonymous != (email != nil) else { throw ValidationError("Give --anonymous, or --email E --password-stdin.") }
        guard email == nil || passwordStdin else { throw ValidationError("--email needs --password-stdin.") }
        guard !(create && anonymous) else { throw ValidationError("--create goes with --email.") }
    }

    func run() async throws {
        let group = scope.group  // nil: --private, or neither
        let password = email == nil ? nil : try readPassword()
        let store = storeOptions.makeStore()
        let auth = try app.makeAuth(store: store, logger: storeOptions.logger, backend: backend)
        let user = try await reporting { () async throws(AuthError) -> User in
            if let email, let password {
                return create
                    ? try await auth.createUser(withEmail: email, password: password, switchingTo: group).user
                    : try await auth.signIn(withEmail: email, password: password, switchingTo: group).user
            }
            return try await auth.signInAnonymously(switchingTo: group).user
        }
        let scope = group.map { "group \($0)" } ?? "its private scope"
        if output.json {
            printJSON([
                "uid": user.uid, "isAnonymous": user.isAnonymous, "email": nullable(user.email),
                "accessGroup": nullable(group),
            ])
        } else {
            printLine("Signed in \(user.uid)\(user.isAnonymous ? " (anonymous)" : user.email.map { " (\($0))" } ?? "") in \(scope) of app \(auth.configuration.options.appName).")
        }
    }
}
