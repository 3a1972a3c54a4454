import ArgumentParser

/// The options of `keyring-auth emulator`, which `keyring-auth` parses and checks, and `keyring-auth-emulator`,
/// the executable that runs the emulator (SwiftNIO stays out of `keyring-auth`), parses again from the same words.
package struct EmulatorOptions: ParsableArguments {
    /// The usage line of both programs (ArgumentParser's own, with this many options, would be `<options>`).
    package static let usage = """
        keyring-auth emulator [--host <host>] [--port <port>] [--allow-non-loopback] [--project-id <id>] [--token-lifetime <seconds>] \
        [--idle-timeout <seconds>] [--max-connections <n>] [--no-anonymous] [--email-enumeration-protection] [--import <file>] \
        [--export-on-exit <file>] [--recaptcha OFF|AUDIT|ENFORCE] [--app-check ENFORCE|UNENFORCED] \
        [--app-check-debug-tokens-file <file>] [--verbose]
        """

    @Option(help: "The address to listen on: a loopback address unless --allow-non-loopback.")
    package var host = "127.0.0.1"

    @Flag(help: "Allow a --host other than loopback. Anything on the network can then use the emulator, with any API key.")
    package var allowNonLoopback = false

    @Option(help: "Close a connection after this many seconds without traffic.")
    package var idleTimeout = 60

    @Option(name: .customLong("max-connections"), help: "Close new connections while this many are open.")
    package var maxConnections = 256

    @Option(help: "The port; 0 picks a free one.")
    package var port = 9099

    @Option(name: .customLong("project-id"), help: "The project the tokens are issued for.")
    package var projectID = "demo-keyring-auth"

    @Option(help: "How long ID tokens last, in seconds (at most 366 days).")
    package var tokenLifetime = 3600

    @Flag(help: "Refuse anonymous sign-up (OPERATION_NOT_ALLOWED).")
    package var noAnonymous = false

    @Flag(help: "Answer INVALID_LOGIN_CREDENTIALS for both a wrong password and an unknown email.")
    package var emailEnumerationProtection = false

    @Option(name: .customLong("import"), help: "An accounts JSON file to load at start.")
    package var importFile: String?

    @Option(
        name: .customLong("export-on-exit"),
        help: "Write the accounts, their passwords and second factors' secrets, to this file (mode 0600) when stopped.")
    package var exportFile: String?

    @Option(
        name: .customLong("recaptcha"),
        help: ArgumentHelp(
            "For tests: stand in for Google's reCAPTCHA with this phone enforcement (OFF, AUDIT or ENFORCE).",
            discussion: "Phone requests then need a token from the emulator's own reCAPTCHA scripts (/emulator/recaptcha/), "
                + "and v2/recaptchaConfig answers this enforcement. Left out, app verification is not asked for.",
            valueName: "enforcement"))
    package var recaptcha: String?

    @Option(
        name: .customLong("app-check"),
        help: ArgumentHelp(
            "Enforce App Check on Auth's calls (ENFORCE), or only exchange App Check tokens (UNENFORCED, the default).",
            discussion: "With ENFORCE, sign-ups, sign-ins, lookups, updates, deletions and email and phone codes need a token the "
                + "emulator issued in X-Firebase-AppCheck, as Identity Platform with App Check enforced; token refreshes, second "
                + "factors and the Admin API do not. Debug tokens come from APP_CHECK_DEBUG_TOKEN and --app-check-debug-tokens-file.",
            valueName: "enforcement"))
    package var appCheck: String?

    @Option(
        name: .customLong("app-check-debug-tokens-file"),
        help: ArgumentHelp(
            "A file of App Check debug tokens to exchange, one a line (APP_CHECK_DEBUG_TOKEN adds one); never on the command line.",
            valueName: "file"))
    package var appCheckDebugTokensFile: String?

    @Flag(help: "Log each request (method, path, status) to standard error.")
    package var verbose = false

    /// The longest token lifetime, in seconds: `AuthEmulator.maximumTokenLifetimeSeconds` (a test keeps them equal).
    package static let maximumTokenLifetimeSeconds = 366 * 24 * 3600

    package init() {}

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        guard (1...Self.maximumTokenLifetimeSeconds).contains(tokenLifetime) else {
            throw ValidationError("--token-lifetime takes 1 to \(Self.maximumTokenLifetimeSeconds) seconds (366 days)")
        }
        guard idleTimeout > 0, maxConnections > 0 else { throw ValidationError("--idle-timeout and --max-connections take a positive number") }
        if let recaptcha, !["OFF", "AUDIT", "ENFORCE"].contains(recaptcha.uppercased()) {
            throw ValidationError("--recaptcha takes OFF, AUDIT or ENFORCE")
        }
        if let appCheck, !["ENFORCE", "UNENFORCED"].contains(appCheck.uppercased()) {
            throw ValidationError("--app-check takes ENFORCE or UNENFORCED")
        }
    }
}
