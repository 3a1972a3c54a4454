import Logging

extension SecretServiceStore {
    /// How a ``SecretServiceStore`` reaches the Secret Service.
    public struct Configuration: Sendable {
        /// The collection items are kept in. The store never creates a collection and never changes an alias.
        public var collection: Collection
        /// The longest any one D-Bus call may take before it fails with ``KeychainError/timedOut(operation:limit:writes:)``.
        /// Zero or less fails every call that way at once; a limit over a century counts as a century.
        public var timeout: Duration
        /// How long to wait for the person to answer the provider's unlock prompt when the collection
        /// is locked, or `nil` to fail with ``KeychainError/locked(collection:)`` without asking.
        public var unlockTimeout: Duration?
        /// Where the store logs. It never logs a secret.
        public var logger: Logger

        /// - Parameters:
        ///   - collection: Defaults to ``Collection/defaultAlias``.
        ///   - timeout: Defaults to 5 seconds.
        ///   - unlockTimeout: Defaults to 60 seconds; headless providers refuse at once.
        ///   - logger: Defaults to a logger labelled `SecretKeychain`.
        public init(
            collection: Collection = .defaultAlias,
            timeout: Duration = .seconds(5),
            unlockTimeout: Duration? = .seconds(60),
            logger: Logger = Logger(label: "SecretKeychain")
        ) {
            self.collection = collection
            self.timeout = timeout
            self.unlockTimeout = unlockTimeout
            self.logger = logger
        }
    }
}
