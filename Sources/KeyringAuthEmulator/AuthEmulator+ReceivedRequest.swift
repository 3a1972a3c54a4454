extension AuthEmulator {
    /// A request the emulator received, as ``AuthEmulator/receivedRequests`` keeps it: never an ID token, refresh
    /// token or password.
    public struct ReceivedRequest: Hashable, Sendable {
        /// `accounts:signUp`, `accounts:signInWithIdp`, …, or `token` for the secure-token endpoint.
        public var operation: String
        /// The body's `tenantId`, if it had one.
        public var tenantID: String?
        /// The `X-Firebase-Locale` header, if it had one.
        public var languageCode: String?
        /// The app verification fields a phone request carried, as sent (`recaptchaToken`, `captchaResponse`,
        /// `clientType`, `recaptchaVersion`, and the iOS and Android proofs), from its body or its
        /// `phoneEnrollmentInfo` / `phoneSignInInfo`; empty for other requests. reCAPTCHA tokens are single use.
        public var appVerification: [String: String]
        /// The app of the valid App Check token the request carried in `X-Firebase-AppCheck`, enforced or not; `nil` when
        /// it carried none, or one that does not pass (``AppCheckSettings``).
        public var appCheckAppID: String?

        public init(
            operation: String, tenantID: String? = nil, languageCode: String? = nil, appVerification: [String: String] = [:],
            appCheckAppID: String? = nil
        ) {
            self.operation = operation
            self.tenantID = tenantID
            self.languageCode = languageCode
            self.appVerification = appVerification
            self.appCheckAppID = appCheckAppID
        }

        /// The fields ``appVerification`` keeps.
        static let appVerificationFields: Set<String> = [
            "recaptchaToken", "captchaResponse", "clientType", "recaptchaVersion", "iosReceipt", "iosSecret",
            "playIntegrityToken", "safetyNetToken",
        ]

        /// The app verification fields of a request body (at most 4,096 bytes of each).
        static func appVerification(of body: [String: Any]) -> [String: String] {
            var found: [String: String] = [:]
            for object in [body, body["phoneEnrollmentInfo"], body["phoneSignInInfo"]].compactMap({ $0 as? [String: Any] }) {
                for (name, value) in object where appVerificationFields.contains(name) {
                    if let text = value as? String { found[name] = String(text.utf8.prefix(4096)) ?? "" }
                }
            }
            return found
        }
    }
}
