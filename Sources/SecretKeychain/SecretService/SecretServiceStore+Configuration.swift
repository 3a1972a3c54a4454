import Logging

extension SecretServiceStore {
    /// The collection a store keeps its items in.
    public enum Collection: Hashable, Sendable, CustomStringConvertible {
        /// The collection the `default` alias points to (gnome-keyring's `login`). The usual choice.
        case defaultAlias
        /// The collection the `session` alias points to: in memory only, gone when the provider stops.
        case sessionAlias
        /// A collection named by its D-Bus object path, such as `/org/freedesktop/secrets/collection/login`.
        case objectPath(String)

        public var description: String {
            switch self {
            case .defaultAlias: return "the default alias"
            case .sessionAlias: return "the session alias"
            case .objectPath(let path): return path
            }
        }

        /// Parses `default`, `session` or an object path starting with `/`.
        public init?(argument: String) {
            switch argument {
            case "default": self = .defaultAlias
            case "session": self = .sessionAlias
            case let path where path.hasPrefix("/"): self = .objectPath(path)
            default: return nil
            }
        }
    }

    /// How a ``SecretServiceStore`` reaches the Secret Service.
    public struct Configuration: Sendable {
        /// The collection items are kept in. The store never creates a collection and never changes an alias.
        public var collection: Collection
        /// The longest any one D-Bus call may take before it fails with ``KeychainError/timedOut(operation:limit:)``.
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
