import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign the app in (anonymously, with email and password, a provider's tokens, a custom token, in the browser with the project's own provider, Google, an OpenID Connect provider or GitHub, with GitHub's device flow, or with a phone number) in --group G or --private.",
        usage: """
            keyring-auth sign-in (--anonymous | --email <email> --password-stdin [--create] | --email <email> --link-stdin | --idp <provider> \
            [--id-token-stdin] [--access-token-stdin] | --custom-token-stdin | (--google | --oidc <issuer> --provider-id <id>) \
            --client-id <id> [--client-secret-stdin] [--port <port>] [--browser-timeout <seconds>] [--no-browser] | --provider <id> \
            [--custom-parameter <key=value>]… [--scope <scope>]… [--port <port>] [--browser-timeout <seconds>] [--no-browser] | --github \
            --client-id <id> [--scope <scope>]… [--github-host <url>] [--open-browser] | --github --client-id <id> --client-secret-stdin \
            [--github-host <url>] [--port <port>] [--browser-timeout <seconds>] [--no-browser] | --phone <number> [--port <port>] \
            [--browser-timeout <seconds>] [--no-browser]) [--factor <uid>] \
            [--group <group> | --private] \
            \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)
            """,
        discussion: """
            With --group G the app ends up in G as useUserAccessGroup does (leaving its private \
            scope signs its private user out); with --private (the same as giving neither), in its private scope. The backend is asked \
            first: a sign-in that fails changes nothing stored. Passwords, email sign-in links and tokens are read from \
            standard input, never from the command line; with --idp and both token flags, the ID token on the first \
            line and the access token on the second. Against the emulator an ID token may be plain JSON \
            naming the provider's user ('{"sub": "abc123", "email": "ada@example.com", "email_verified": true}'), \
            and a custom token an unsigned JWT or '{"uid": "…", "claims": {…}}'. With --google or --oidc the provider's \
            sign-in page opens in the browser (its URL is printed on standard error, to open by hand with --no-browser) \
            and the redirect comes back to 127.0.0.1 (PKCE, state and nonce checked; Microsoft's to localhost); no code or token \
            is printed. With --provider (microsoft.com, yahoo.com, …) Firebase begins the sign-in with the project's own \
            registration at the provider, whose page opens in the browser and comes back to http://localhost:PORT/ (Firebase's \
            state checked); the person is the same Firebase user as in the project's web app. With \
            --github the code to enter and GitHub's address are printed on standard error (opened with --open-browser), and \
            the sign-in waits until the person has entered it, declined, or the code expired (fifteen minutes); Ctrl-C \
            stops it, nothing stored. With --phone the app is verified on a page in the browser (reCAPTCHA, as the \
            project asks; its address on standard error, to open by hand with --no-browser), Firebase sends the code by \
            SMS, and the code is read at a prompt on a terminal, else from the next line of standard input. \
            An account with a second factor then needs its code: an authenticator app's (TOTP), or, for an SMS factor, \
            the code sent once its page in the browser is done; at a prompt on a terminal, else on the next line of \
            standard input; --factor chooses among several. Nothing is stored until it is accepted.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Credential") var credential: CredentialOptions
    @OptionGroup(title: "Sign-in in the browser") var browser: BrowserSignInOptions

    @Flag(help: "Sign in anonymously (an already anonymous user stays signed in).")
    var anonymous = false

    @Flag(help: "With --email: create the account first.")
    var create = false

    @Flag(help: "Sign in with a custom token the app's server minted, read from standard input.")
    var customTokenStdin = false

    @Option(help: "The second factor to finish with, when the account has several (its uid, as `mfa list` shows it).")
    var factor: String?

    func validate() throws {
        let methods = [anonymous, credential.given, customTokenStdin, browser.given].filter { $0 }.count
        guard methods == 1 else {
            throw ValidationError(
                "Give one of --anonymous, --email E --password-stdin, --idp P --id-token-stdin [--access-token-stdin], "
                    + "--custom-token-stdin, --provider ID, --google / --oidc ISSUER --provider-id ID with --client-id ID, --github --client-id ID, "
                    + "or --phone NUMBER.")
        }
        guard !create || (credential.email != nil && credential.passwordStdin) else {
            throw ValidationError("--create goes with --email and --password-stdin.")
        }
    }

    func run() async throws {
        let group = scope.group  // nil: --private, or neither
        let given = try credential.read()
        let customToken = customTokenStdin ? try readSecretLines(["the custom token"], flag: "--custom-token-stdin")[0] : nil
        let clientSecret = try browser.readSecret()
        let store = storeOptions.makeStore()
        let auth = try app.makeAuth(store: store, logger: storeOptions.logger, backend: backend)
        let create = create, factor = factor
        let browser = browser, logger = storeOptions.logger
        @Sendable func firstFactor() async throws -> AuthDataResult {
            if browser.given {
                // The browser first: nothing stored changes until the provider's credential is in hand and accepted.
                let credential = try await browser.credential(secret: clientSecret, auth: auth, logger: logger)
                return try await auth.signIn(with: credential, switchingTo: group)
            }
            if create, case .email(let email, let password)? = given {
                return try await auth.createUser(withEmail: email, password: password, switchingTo: group)
            }
            if let given { return try await auth.signIn(with: given.credential, switchingTo: group) }
            if let customToken { return try await auth.signIn(withCustomToken: customToken, switchingTo: group) }
            return try await auth.signInAnonymously(switchingTo: group)
        }
        let result = try await reporting { () async throws -> AuthDataResult in
            do {
                return try await firstFactor()
            } catch let error as AuthError where error.code == .secondFactorRequired {
                // The account has a second factor: nothing is stored until its code finishes the sign-in.
                guard let resolver = error.multiFactorResolver else { throw error }
                return try await resolveSecondFactor(resolver, factor: factor, page: browser.page)
            }
        }
        let user = result.user
        let scope = scopeName(group)
        if output.json {
            printJSON([
                "uid": user.uid, "isAnonymous": user.isAnonymous, "email": nullable(user.email),
                "accessGroup": nullable(group), "providers": user.providerData.map(\.providerID),
                "isNewUser": result.additionalUserInfo?.isNewUser ?? false,
            ])
        } else {
            let how = user.isAnonymous ? " (anonymous)" : user.email.map { " (\($0))" } ?? ""
            let method = result.additionalUserInfo?.providerID
            let via = method.map { ["anonymous", "password"].contains($0) ? "" : " with \($0)" } ?? ""
            printLine("Signed in \(user.uid)\(how)\(via) in \(scope) of app \(auth.configuration.options.appName).")
        }
    }
}
