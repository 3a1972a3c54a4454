extension AuthEmulator {
    /// App Check on the emulator, as a project with App Check for Authentication has it.
    ///
    /// The emulator always serves App Check's exchanges (`POST /firebaseappcheck.googleapis.com/v1/projects/<project>/apps/<appId>:exchangeDebugToken`,
    /// and `…:exchangeCustomToken` for the Admin API with `Authorization: Bearer owner`) and issues tokens signed under a key
    /// of its own. With ``enforcesOnAuth``, the apps' calls App Check protects (`accounts:signUp`, `signInWithPassword`,
    /// `lookup`, `update`, `delete`, …) need one of its tokens in `X-Firebase-AppCheck`, else they answer 401
    /// `Firebase App Check token is invalid.`; token refreshes, second factors, reCAPTCHA's configuration and the Admin
    /// API are not checked, as in Identity Platform. Without these settings (the default, as firebase-tools) the header
    /// is ignored and no debug token is registered.
    public struct AppCheckSettings: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// Whether the calls App Check protects need a valid token (the console's "Enforced"); off: "Unenforced".
        public var enforcesOnAuth: Bool
        /// The debug tokens (secrets) `exchangeDebugToken` takes, as registered in the Firebase console; any other is
        /// `PERMISSION_DENIED`. Each at most ``maximumDebugTokenBytes``.
        public var debugTokens: Set<String>
        /// How long the tokens of debug exchanges last: Firebase's default, one hour, unless a test wants them shorter
        /// (whole seconds, from 1 s to 7 days).
        public var tokenLifetime: Duration

        public init(enforcesOnAuth: Bool = false, debugTokens: Set<String> = [], tokenLifetime: Duration = .seconds(3600)) {
            self.enforcesOnAuth = enforcesOnAuth
            self.debugTokens = debugTokens
            self.tokenLifetime = tokenLifetime
        }

        /// The longest debug token (Firebase's are UUIDs).
        public static let maximumDebugTokenBytes = 1024

        /// Says how many debug tokens there are, never which.
        public var description: String {
            "AppCheckSettings(enforcesOnAuth: \(enforcesOnAuth), debugTokens: \(debugTokens.count), tokenLifetime: \(tokenLifetime))"
        }

        public var debugDescription: String { description }

        /// What is wrong with the settings, for ``AuthEmulator/start()``; `nil` when they are usable.
        var problem: String? {
            guard tokenLifetime >= .seconds(1), tokenLifetime <= .seconds(7 * 24 * 3600) else {
                return "the App Check token lifetime must be from 1 s to 7 days"
            }
            guard debugTokens.allSatisfy({ !$0.isEmpty && $0.utf8.count <= Self.maximumDebugTokenBytes }) else {
                return "an App Check debug token must be 1 to \(Self.maximumDebugTokenBytes) bytes"
            }
            return nil
        }
    }

    /// An App Check exchange the emulator was asked for, as ``AuthEmulator/appCheckExchanges`` keeps it: never a secret
    /// or a token.
    public struct AppCheckExchange: Hashable, Sendable {
        /// The exchange's method.
        public enum Method: String, Hashable, Sendable {
            /// A debug token, from an app's debug provider.
            case exchangeDebugToken
            /// A custom token, from a backend's Admin SDK (`createToken`).
            case exchangeCustomToken
        }

        public var method: Method
        /// The app of the request's path.
        public var appID: String
        /// Whether a limited-use token was asked for.
        public var limitedUse: Bool
        /// Whether a token was issued; `false` when the exchange was refused.
        public var issued: Bool

        public init(method: Method, appID: String, limitedUse: Bool, issued: Bool) {
            self.method = method
            self.appID = appID
            self.limitedUse = limitedUse
            self.issued = issued
        }
    }

    /// The last 1,000 App Check exchanges asked for, oldest first, refused ones included: for tests that count how many
    /// exchanges apps made.
    public var appCheckExchanges: [AppCheckExchange] { service.appCheckExchanges }
}
