import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

/// The code on standard input: a bare code, or the whole action link (its `oobCode`), so a person can paste either.
func readActionCode(alsoReading more: [String] = [], flag: String) throws -> (code: String, rest: [String]) {
    let lines = try readSecretLines(["action code (or its link)"] + more, flag: flag)
    let given = lines[0].trimmingCharacters(in: .whitespaces)
    let code = given.contains("?") ? ActionCodeURL(link: given)?.code ?? given : given
    return (code, Array(lines.dropFirst()))
}

/// The settings of `send-oob`'s link.
struct LinkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where the link leads after the action (ActionCodeSettings.url); required for --sign-in-link.", valueName: "url"))
    var continueURL: String?

    @Flag(help: "The link opens the app directly (ActionCodeSettings.handleCodeInApp); implied by --sign-in-link.")
    var handleCodeInApp = false

    @Option(help: ArgumentHelp("The Firebase Hosting domain of the link (ActionCodeSettings.linkDomain).", valueName: "domain"))
    var linkDomain: String?

    func settings(signInLink: Bool) throws -> ActionCodeSettings? {
        guard continueURL != nil || handleCodeInApp || linkDomain != nil || signInLink else { return nil }
        let settings = ActionCodeSettings()
        if let continueURL {
            guard let url = URL(string: continueURL), url.scheme != nil, url.host != nil else {
                throw ValidationError("--continue-url takes an absolute URL such as https://example.com/finish")
            }
            settings.url = url
        }
        settings.handleCodeInApp = handleCodeInApp || signInLink
        settings.linkDomain = linkDomain
        return settings
    }
}

struct SendOOB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-oob",
        abstract: "Have an email action code sent: a password reset, an email verification, a sign-in link, or an address change.",
        usage: """
            keyring-auth send-oob (--password-reset --email <email> | --sign-in-link --email <email> --continue-url <url> | \
            --verify-email | --change-email <email>) [--handle-code-in-app] [--link-domain <domain>] \
            \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)
            """,
        discussion: """
            --verify-email and --change-email are for the app's signed-in user (its saved group choice). Firebase mails the \
            code; `keyring-auth emulator` prints its link instead. Then: `reset-password`, `apply-code`, `check-code`, or \
            `sign-in --email E --link-stdin`, each reading the code or its whole link from standard input.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Link") var link: LinkOptions

    @Flag(help: "A password-reset email to --email.")
    var passwordReset = false

    @Flag(help: "A sign-in link to --email (needs --continue-url).")
    var signInLink = false

    @Flag(help: "A verification of the signed-in user's email address.")
    var verifyEmail = false

    @Option(help: ArgumentHelp("A verification of this new address for the signed-in user, which then replaces the old one.", valueName: "email"))
    var changeEmail: String?

    @Option(help: "The address, with --password-reset or --sign-in-link.")
    var email: String?

    func validate() throws {
        let kinds = [passwordReset, signInLink, verifyEmail, changeEmail != nil].filter { $0 }.count
        guard kinds == 1 else {
            throw ValidationError("Give one of --password-reset, --sign-in-link, --verify-email, --change-email <email>.")
        }
        guard (passwordReset || signInLink) == (email != nil) else {
            throw ValidationError(email == nil ? "--password-reset and --sign-in-link need --email." : "--email goes with --password-reset or --sign-in-link.")
        }
        guard !signInLink || link.continueURL != nil else {
            throw ValidationError("--sign-in-link needs --continue-url (the link's address; its domain must be authorized in Firebase).")
        }
    }

    func run() async throws {
        let settings = try link.settings(signInLink: signInLink)
        let store = storeOptions.makeStore()
        let auth = try app.makeAuth(store: store, logger: storeOptions.logger, backend: backend)
        let kind: String
        if let email, passwordReset {
            kind = "password-reset"
            try await reporting { try await auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings) }
        } else if let email, let settings {
            kind = "sign-in-link"
            try await reporting { try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings) }
        } else {
            let user = try signedInUser(auth)
            defer { withExtendedLifetime(auth) {} }
            if let changeEmail {
                kind = "change-email"
                try await reporting { try await user.sendEmailVerification(beforeUpdatingEmail: changeEmail, actionCodeSettings: settings) }
            } else {
                kind = "verify-email"
                try await reporting { try await user.sendEmailVerification(with: settings) }
            }
        }
        let to = email ?? changeEmail ?? auth.currentUser?.email ?? "the user's address"
        if output.json {
            printJSON(["sent": kind, "email": to])
        } else {
            let emulated = (try? (auth.configuration.backend as? IdentityToolkitBackend)?.endpoint().emulatorHost) != nil
            printLine("Sent a \(kind) email to \(to)\(emulated ? " (the emulator prints its link)" : "").")
        }
    }
}

struct CheckCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-code",
        abstract: "Say what an email action code is for and whom it was sent to, without using it up.",
        usage: "keyring-auth check-code --code-stdin \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)",
        discussion: "Reads the code, or the whole link from the email, from standard input.")

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var codeInput: CodeInputOptions

    func run() async throws {
        let (code, _) = try readActionCode(flag: "--code-stdin")
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend)
        let info = try await reporting { () async throws in try await auth.checkActionCode(code) }
        if output.json {
            printJSON(["operation": info.operation.description, "email": info.email, "previousEmail": nullable(info.previousEmail)])
        } else {
            printLine("A \(info.operation) code for \(info.email)\(info.previousEmail.map { " (replacing \($0))" } ?? "").")
        }
    }
}

struct ApplyCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply-code",
        abstract: "Apply an email verification (or address change) code, using it up.",
        usage: "keyring-auth apply-code --code-stdin \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)",
        discussion: """
            Reads the code, or the whole link from the email, from standard input. When the code is for the app's \
            signed-in user, the stored user is updated (a verified address), so every app of its group sees it; an \
            address change signs the user out of every app of the group, as Firebase ends its sessions.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var codeInput: CodeInputOptions

    func run() async throws {
        let (code, _) = try readActionCode(flag: "--code-stdin")
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend)
        let info = try await reporting { () async throws in try await auth.checkActionCode(code) }
        try await reporting { try await auth.applyActionCode(code) }
        let user = auth.currentUser
        if output.json {
            printJSON([
                "applied": info.operation.description, "email": info.email, "signedIn": nullable(user?.uid),
                "emailVerified": user.map { $0.isEmailVerified as Any } ?? NSNull(),
            ])
        } else {
            let after = user.map { " App \(auth.configuration.options.appName)'s user \($0.uid): email verified \($0.isEmailVerified)." } ?? ""
            printLine("Applied the \(info.operation) code for \(info.email).\(after)")
        }
    }
}

struct ResetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Set a new password with a password-reset code, using it up.",
        usage: "keyring-auth reset-password --code-stdin --password-stdin \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)",
        discussion: """
            Reads the code (or the whole link from the email) on the first line of standard input and the new password \
            on the second. The reset ends the account's sessions: when the app's signed-in user is that account, it is \
            signed out of every app of its group.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Read the code (or its link) from the first line of standard input.")
    var codeStdin = false

    @Flag(help: "Read the new password from the second line of standard input.")
    var passwordStdin = false

    func validate() throws {
        guard codeStdin && passwordStdin else {
            throw ValidationError("reset-password reads the code, then the new password, from standard input: give --code-stdin --password-stdin.")
        }
    }

    func run() async throws {
        let (code, rest) = try readActionCode(alsoReading: ["new password"], flag: "--code-stdin --password-stdin")
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend)
        let email = try await reporting { () async throws in try await auth.verifyPasswordResetCode(code) }
        let before = auth.currentUser?.uid
        try await reporting { try await auth.confirmPasswordReset(withCode: code, newPassword: rest[0]) }
        let signedOut = before != nil && auth.currentUser == nil
        if output.json {
            printJSON(["passwordReset": email, "signedOut": signedOut])
        } else {
            let after = signedOut
                ? " Its sessions ended: app \(auth.configuration.options.appName) is signed out in \(scopeName(auth.userAccessGroup))." : ""
            printLine("Set a new password for \(email).\(after)")
        }
    }
}

/// `--code-stdin`, which `check-code` and `apply-code` need: the code, or the whole link from the
/// email, on standard input (never an argument, which other processes can read).
struct CodeInputOptions: ParsableArguments {
    @Flag(help: "Read the code (or its link) from standard input.")
    var codeStdin = false

    func validate() throws {
        guard codeStdin else { throw ValidationError("The code is read from standard input: give --code-stdin.") }
    }
}
