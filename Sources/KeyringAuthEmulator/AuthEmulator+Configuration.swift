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
        /// The project's `signIn.allowDuplicateEmails`: an identity provider's sign-in neither joins an account
        /// that has its address nor gives its address to the account, so several accounts may share an address
        /// through their providers (an account's own address still belongs to it alone, as in firebase-tools).
        public var allowsDuplicateEmails: Bool

        public init(allowsAnonymousSignUp: Bool = true, emailEnumerationProtection: Bool = false, allowsDuplicateEmails: Bool = false) {
            self.allowsAnonymousSignUp = allowsAnonymousSignUp
            self.emailEnumerationProtection = emailEnumerationProtection
            self.allowsDuplicateEmails = allowsDuplicateEmails
        }
    }

    /// How the emulator is set up when it starts.
    public struct Configuration: Sendable {
        /// The address to listen on: a loopback address (127.0.0.0/8, `::1`, or a name such as `localhost`
        /// that resolves to one) unless ``allowsNonLoopback`` is set. IPv6 addresses may be bracketed (`[::1]`).
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
        /// Whether ``host`` may be an address other than loopback. Off by default: the emulator accepts any
        /// API key and deletes every account on an unauthenticated request, so on another address anything
        /// on the network can use it. When on and the address is not loopback, starting logs a warning.
        public var allowsNonLoopback: Bool
        /// A connection on which nothing is read or written for this long is closed (default one minute).
        public var idleTimeout: Duration
        /// At most this many client connections are open at once; more are closed as soon as they are
        /// accepted (default 256).
        public var maximumConnections: Int
        /// How long an email action code (``AuthEmulator/OutOfBandCode``) can be used (default one hour).
        public var oobCodeLifetime: Duration
        /// Told of each email action code as it is made (instead of the email being sent), on the thread that
        /// served the request: `keyring-auth emulator` prints each code's link.
        public var onOutOfBandCode: (@Sendable (OutOfBandCode) -> Void)?
        /// Told of each phone verification code as it is made (instead of the SMS being sent), on the thread that
        /// served the request: `keyring-auth emulator` prints each one's ``VerificationCode/message``.
        public var onVerificationCode: (@Sendable (VerificationCode) -> Void)?
        /// The stand-in reCAPTCHA, a test option (``StandInRecaptcha``); `nil` (the default): app verification is not
        /// asked for, as in firebase-tools.
        public var recaptcha: StandInRecaptcha?
        /// App Check (``AppCheckSettings``): its debug tokens, and whether Auth's calls need a token; `nil` (the default):
        /// the `X-Firebase-AppCheck` header is ignored, as in firebase-tools, and every debug exchange is refused.
        public var appCheck: AppCheckSettings?

        public init(
            host: String = "127.0.0.1", port: Int = 9099, projectID: String = "demo-keyring-auth",
            tokenLifetime: Duration = .seconds(3600), maximumRequestBytes: Int = 1024 * 1024, maximumAccounts: Int = 100_000,
            settings: Settings = Settings(), logger: Logger = Logger(label: "KeyringAuthEmulator"),
            allowsNonLoopback: Bool = false, idleTimeout: Duration = .seconds(60), maximumConnections: Int = 256,
            oobCodeLifetime: Duration = .seconds(3600), onOutOfBandCode: (@Sendable (OutOfBandCode) -> Void)? = nil,
            onVerificationCode: (@Sendable (VerificationCode) -> Void)? = nil, recaptcha: StandInRecaptcha? = nil,
            appCheck: AppCheckSettings? = nil
        ) {
            self.host = host
            self.port = port
            self.projectID = projectID
            self.tokenLifetime = tokenLifetime
            self.maximumRequestBytes = maximumRequestBytes
            self.maximumAccounts = maximumAccounts
            self.settings = settings
            self.logger = logger
            self.allowsNonLoopback = allowsNonLoopback
            self.idleTimeout = idleTimeout
            self.maximumConnections = maximumConnections
            self.oobCodeLifetime = oobCodeLifetime
            self.onOutOfBandCode = onOutOfBandCode
            self.onVerificationCode = onVerificationCode
            self.recaptcha = recaptcha
            self.appCheck = appCheck
        }
    }
}
