import Logging

extension AuthEmulator {
    /// What can change while the emulator runs.
    public struct Settings: Hashable, Sendable {
        /// Whether `accounts:signUp` without a credential creates an anonymous account; when `false`
        /// it answers `OPERATION_NOT_ALLOWED`, as a project with anonymous sign-in disabled does.
        public var allowsAnonymousSignUp: Bool
        /// Email enumeration protection: a wrong password and an unknown email both answer
        /// `INVALID_LOGIN_CREDENTIALS` instead of `INVALID_PASSWORD` / `EMAIL_NOT_FOUND`.
        public var emailEnumerationProtection: Bool

        public init(allowsAnonymousSignUp: Bool = true, emailEnumerationProtection: Bool = false) {
            self.allowsAnonymousSignUp = allowsAnonymousSignUp
            self.emailEnumerationProtection = emailEnumerationProtection
        }
    }

    /// How the emulator is set up when it starts.
    public struct Configuration: Sendable {
        /// The address to listen on; loopback unless you mean to expose it.
        public var host: String
        /// The port; `0` picks a free one (read it from ``AuthEmulator/start()``'s answer).
        public var port: Int
        /// The project the tokens are issued for (their `aud`; `iss` is `https://securetoken.google.com/<projectID>`).
        public var projectID: String
        /// How long ID tokens last (Firebase: one hour). Shorter lifetimes let tests exercise refresh;
        /// anything under five minutes makes every `getIDToken()` refresh.
        public var tokenLifetime: Duration
        /// Requests with a larger body are answered with HTTP 413 and not read further.
        public var maximumRequestBytes: Int
        /// Sign-ups beyond this many accounts answer `QUOTA_EXCEEDED`.
        public var maximumAccounts: Int
        public var settings: Settings
        /// Where the emulator logs requests (method, path, status); bodies and tokens are never logged.
        public var logger: Logger

        public init(
            host: String = "127.0.0.1", port: Int = 9099, projectID: String = "demo-keyring-auth",
            tokenLifetime: Duration = .seconds(3600), maximumRequestBytes: Int = 64 * 1024, maximumAccounts: Int = 100_000,
            settings: Settings = Settings(), logger: Logger = Logger(label: "KeyringAuthEmulator")
        ) {
            self.host = host
            self.port = port
            self.projectID = projectID
            self.tokenLifetime = tokenLifetime
            self.maximumRequestBytes = maximumRequestBytes
            self.maximumAccounts = maximumAccounts
            self.settings = settings
            self.logger = logger
        }
    }
}
