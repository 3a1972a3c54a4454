extension SecretServiceStore {
    /// The collection a store keeps its items in.
    public enum Collection: Hashable, Sendable, CustomStringConvertible {
        /// The collection the `default` alias points to (gnome-keyring's `login`). The usual choice.
        case defaultAlias
        /// The collection the `session` alias points to: in memory only, gone when the provider stops.
        case sessionAlias
        /// A collection named by its D-Bus object path, such as `/org/freedesktop/secrets/collection/login`.
        /// A path that breaks the D-Bus grammar makes every operation throw
        /// ``KeychainError/invalidCollectionPath(_:reason:)``; ``objectPath(validating:)`` checks it up front.
        case objectPath(String)

        public var description: String {
            switch self {
            case .defaultAlias: return "the default alias"
            case .sessionAlias: return "the session alias"
            case .objectPath(let path): return path
            }
        }

        /// Parses `default`, `session` or a valid D-Bus object path; `nil` for anything else.
        public init?(argument: String) {
            switch argument {
            case "default": self = .defaultAlias
            case "session": self = .sessionAlias
            case let path where Self.objectPathViolation(in: path) == nil: self = .objectPath(path)
            default: return nil
            }
        }

        /// A collection named by `path`, checked against the D-Bus object path grammar.
        ///
        /// - Throws: ``KeychainError/invalidCollectionPath(_:reason:)`` naming the rule broken.
        public static func objectPath(validating path: String) throws(KeychainError) -> Collection {
            if let reason = objectPathViolation(in: path) { throw .invalidCollectionPath(path, reason: reason) }
            return .objectPath(path)
        }

        /// Why `path` is not a D-Bus object path, or `nil` when it is one: `/`, or `/` followed by
        /// non-empty elements of `[A-Za-z0-9_]` separated by single slashes, with no trailing slash.
        public static func objectPathViolation(in path: String) -> String? {
            guard path.hasPrefix("/") else { return "it does not start with /" }
            guard path != "/" else { return nil }
            if path.hasSuffix("/") { return "it ends with /" }
            for element in path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
                if element.isEmpty { return "it contains an empty element (//)" }
                let allowed = element.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                }
                if !allowed { return "its elements may hold only letters A–Z and a–z, digits and _" }
            }
            return nil
        }
    }
}
