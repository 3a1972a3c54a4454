import FoundationEssentials

/// An item carrying this package's schema whose attributes do not form a ``KeychainKey`` (no
/// `scope`, a group scope without a valid `access-group`, an unknown scope, …). It is described,
/// never read and never changed.
public struct UnrecognizedKeychainItem: Hashable, Sendable {
    /// Where the store keeps it (for the Secret Service, the item's D-Bus object path).
    public var identifier: String
    /// The human-readable label.
    public var label: String
    /// Every attribute, exactly as stored: untrusted, escape them before printing.
    public var attributes: [String: String]
    /// Why the attributes form no key.
    public var reason: String
    /// When the item was first stored.
    public var created: Date
    /// When the item was last written.
    public var modified: Date

    public init(identifier: String, label: String, attributes: [String: String], reason: String, created: Date, modified: Date) {
        self.identifier = identifier
        self.label = label
        self.attributes = attributes
        self.reason = reason
        self.created = created
        self.modified = modified
    }
}
