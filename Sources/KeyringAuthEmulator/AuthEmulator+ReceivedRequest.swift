extension AuthEmulator {
    /// A request the emulator received, as ``AuthEmulator/receivedRequests`` keeps it: never a token or password.
    public struct ReceivedRequest: Hashable, Sendable {
        /// `accounts:signUp`, `accounts:signInWithIdp`, …, or `token` for the secure-token endpoint.
        public var operation: String
        /// The body's `tenantId`, if it had one.
        public var tenantID: String?
        /// The `X-Firebase-Locale` header, if it had one.
        public var languageCode: String?

        public init(operation: String, tenantID: String? = nil, languageCode: String? = nil) {
            self.operation = operation
            self.tenantID = tenantID
            self.languageCode = languageCode
        }
    }
}
