import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain
import SystemSupport

/// `keyring-auth mfa`: the signed-in user's second factors (TOTP authenticator apps, SMS).
struct MultiFactorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "Enroll, list and remove the signed-in user's second factors (authenticator apps, TOTP; phone numbers, SMS).",
        subcommands: [EnrollTOTP.self, EnrollPhone.self, ListFactors.self, Unenroll.self])
}

/// The options every `mfa` command takes: which app, which backend, which scope's user.
struct SignedInUserOptions: ParsableArguments {
    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions

    /// The `Auth` of the app, its scope pinned to --group or --private for this command only, and its signed-in user.
    func signedIn() throws -> (Auth, User) {
        let options = try app.appOptions()
        let choices = scope.isExplicit ? AccessGroupChoices.pinned(to: try scope.accessGroup(), forAppID: options.appID) : nil
        let auth = try app.makeAuth(store: storeOptions.makeStore(), logger: storeOptions.logger, backend: backend, groupChoices: choices)
        return (auth, try signedInUser(auth))
    }
}

extension MultiFactorCommand {
    struct EnrollTOTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-totp",
            abstract: "Enroll an authenticator app as a second factor of the signed-in user.",
            usage: """
                keyring-auth mfa enroll-totp --display-name <name> [--qr-code] [--group <group> | --private] \(Usage.identity) \
                \(Usage.backend) \(Usage.store)
                """,
            discussion: """
                Prints the otpauth:// URI for the authenticator app on standard output, and shows it as a QR code when \
                standard output is a terminal (or with --qr-code); the URI holds the factor's secret, which is printed \
                nowhere else and never logged. Then reads the app's current code: on a terminal at a prompt (a wrong \
                code may be typed once more), otherwise from the next line of standard input. The account needs a \
                verified email address and a sign-in by password, email link or identity provider. Every app of the \
                group sees the new factor.
                """)

        @OptionGroup var user: SignedInUserOptions

        @Option(help: "The factor's name, as the authenticator app and `mfa list` show it.")
        var displayName: String

        @Flag(help: "Show the QR code even when standard output is not a terminal.")
        var qrCode = false

        func run() async throws {
            let (auth, user) = try self.user.signedIn()
            defer { withExtendedLifetime(auth) {} }
            let secret = try await reporting { () async throws -> TOTPSecret in
                try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            }
            let issuer = auth.configuration.options.projectID
            let uri = secret.generateQRCodeURL(withAccountName: user.email ?? user.uid, issuer: issuer)
            print(uri)
            if qrCode || isatty(STDOUT_FILENO) == 1 {
                guard let lines = TerminalQRCode.lines(for: uri) else {
                    throw CLIFailure(.failure, "The URI cannot be drawn as a QR code; type it into the authenticator app.")
                }
                lines.forEach { print($0) }
            }
            fflush(nil)  // the URI and the QR code are out before the code is asked for
            let tries = isatty(STDIN_FILENO) == 1 ? 2 : 1
            for attempt in 1...tries {
                let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: try readAuthenticatorCode())
                do {
                    try await reporting { () async throws in try await user.multiFactor.enroll(with: assertion, displayName: displayName) }
                    break
                } catch let failure as CLIFailure where attempt < tries && failure.message.hasPrefix("invalidVerificationCode") {
                    FileHandle.standardError.write(Data("That code is wrong or has expired; enter the current one.\n".utf8))
                }
            }
            let enrolled = user.multiFactor.enrolledFactors.last { $0.displayName == displayName }
            print("Enrolled \(enrolled.map(factorLine) ?? displayName.escapedForTerminal) for \(user.uid.escapedForTerminal).")
        }
    }

    struct EnrollPhone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-phone",
            abstract: "Enroll a phone number (SMS) as a second factor of the signed-in user.",
            usage: """
                keyring-auth mfa enroll-phone --phone <number> --display-name <name> [--port <port>] [--browser-timeout <seconds>] \
                [--no-browser] [--group <group> | --private] \(Usage.identity) \(Usage.backend) \(Usage.store)
                """,
            discussion: """
                The number's verification page opens in the browser (its address on standard error, to open by hand with \
                --no-browser); Firebase then sends the code by SMS, read at a prompt on a terminal (a wrong code may be typed \
                once more), otherwise from the next line of standard input. The account needs a verified email address and a \
                sign-in by password, email link or identity provider. Every app of the group sees the new factor.
                """)

        @OptionGroup var user: SignedInUserOptions
        @OptionGroup(title: "The verification page") var page: BrowserPageOptions

        @Option(help: ArgumentHelp("The number, E.164 (+15555550100).", valueName: "number"))
        var phone: String

        @Option(help: "The factor's name, as `mfa list` and a sign-in show it.")
        var displayName: String

        func run() async throws {
            let (auth, user) = try self.user.signedIn()
            defer { withExtendedLifetime(auth) {} }
            let (page, phone, displayName) = (page, phone, displayName)
            try await reporting { () async throws in
                let credential = try await page.phoneCredential(phone, auth: auth, multiFactorSession: try await user.multiFactor.session())
                try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: displayName)
            }
            let enrolled = user.multiFactor.enrolledFactors.last { $0.displayName == displayName }
            print("Enrolled \(enrolled.map(factorLine) ?? displayName.escapedForTerminal) for \(user.uid.escapedForTerminal).")
        }
    }

    struct ListFactors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the signed-in user's second factors: uid, name, factor ID and enrollment date.",
            usage: "keyring-auth mfa list [--json] [--group <group> | --private] \(Usage.identity) \(Usage.store)")

        @OptionGroup var user: SignedInUserOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (auth, user) = try self.user.signedIn()
            defer { withExtendedLifetime(auth) {} }
            let factors = user.multiFactor.enrolledFactors
            if output.json {
                printJSON(["uid": user.uid, "secondFactors": factors.map(factorJSON)])
            } else if factors.isEmpty {
                printLine("\(user.uid) has no second factor.")
            } else {
                factors.forEach { print(factorLine($0)) }
            }
        }
    }

    struct Unenroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a second factor of the signed-in user; every app of the group sees it gone.",
            usage: """
                keyring-auth mfa unenroll <factor-uid> [--group <group> | --private] \(Usage.identity) \(Usage.backend) \
                \(Usage.store)
                """)

        @OptionGroup var user: SignedInUserOptions

        @Argument(help: "The factor's uid, as `mfa list` shows it.")
        var factorUID: String

        func run() async throws {
            let (auth, user) = try self.user.signedIn()
            defer { withExtendedLifetime(auth) {} }
            guard user.multiFactor.enrolledFactors.contains(where: { $0.uid == factorUID }) else {
                throw CLIFailure(.invalidInput, "\(user.uid) has no second factor \(factorUID); `keyring-auth mfa list` shows its factors.")
            }
            try await reporting { () async throws in try await user.multiFactor.unenroll(withFactorUID: factorUID) }
            printLine("Removed the second factor \(factorUID) of \(user.uid).")
        }
    }
}
