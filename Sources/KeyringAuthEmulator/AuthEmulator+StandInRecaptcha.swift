extension AuthEmulator {
    /// A test option: the emulator stands in for Google's reCAPTCHA, so that a client's production path (a page that
    /// runs reCAPTCHA v2 or Enterprise, and the token it sends with a phone request) can be tested without Google.
    ///
    /// With it, `GET v2/recaptchaConfig` answers the project's configuration with ``enforcement`` for the phone
    /// provider and an Enterprise key; `GET v1/recaptchaParams` a v2 site key; the emulator serves the scripts
    /// `/emulator/recaptcha/api.js` (v2, a visible "I'm not a robot" button) and `/emulator/recaptcha/enterprise.js`
    /// (Enterprise, no click), whose tokens it mints at `POST /emulator/recaptcha/token`; and
    /// `accounts:sendVerificationCode`, `mfaEnrollment:start` and `mfaSignIn:start` need a token it minted (single use),
    /// as ``Enforcement`` says. Without it (the default, as firebase-tools), app verification is not asked for.
    public struct StandInRecaptcha: Hashable, Sendable {
        /// The phone provider's reCAPTCHA Enterprise enforcement, as a project configures it.
        public enum Enforcement: String, Hashable, Sendable, CaseIterable {
            /// A v2 token (`recaptchaToken`) is needed; `captchaResponse: "NO_RECAPTCHA"` is ignored.
            case off = "OFF"
            /// An Enterprise token (`captchaResponse`) passes; a missing or invalid one is `INVALID_APP_CREDENTIAL`,
            /// so the client retries with `captchaResponse: "NO_RECAPTCHA"` and a v2 token.
            case audit = "AUDIT"
            /// An Enterprise token for the request's action, with `clientType: "CLIENT_TYPE_WEB"` and
            /// `recaptchaVersion: "RECAPTCHA_ENTERPRISE"`, is needed.
            case enforce = "ENFORCE"
        }

        /// What phone requests need, as the project's phone provider enforcement says.
        public var enforcement: Enforcement

        public init(enforcement: Enforcement) {
            self.enforcement = enforcement
        }

        /// The v2 site key `recaptchaParams` gives and `api.js` takes.
        public static let siteKey = "emulator-recaptcha-v2-site-key"
        /// The Enterprise key `recaptchaConfig` gives (`projects/<project>/keys/<key>`) and `enterprise.js` takes.
        public static let enterpriseKey = "emulator-recaptcha-enterprise-key"
    }
}
