extension EmulatorAccount {
    /// An identity provider's sign-in method linked to an account, in the fields of the account
    /// export's `providerUserInfo`.
    public struct ProviderIdentity: Hashable, Sendable, Codable {
        /// The provider, for example `google.com`.
        public var providerId: String
        /// The user's ID at the provider (the ID token's `sub`).
        public var rawId: String
        public var email: String?
        public var displayName: String?
        public var photoUrl: String?
        /// The user's name at the provider, for example a GitHub login.
        public var screenName: String?
        /// `federatedId`, as the method came: the raw ID for a sign-in with the provider, none for one an
        /// administrator or app linked by its fields (`linkProviderUserInfo`) without it.
        var federatedId: String?

        public init(
            providerId: String, rawId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil,
            screenName: String? = nil
        ) {
            self.providerId = providerId
            self.rawId = rawId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.screenName = screenName
        }

        private enum CodingKeys: String, CodingKey {
            case providerId, rawId, email, displayName, photoUrl, screenName, federatedId
        }
    }
}
