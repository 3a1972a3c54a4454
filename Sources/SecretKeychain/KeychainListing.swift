import Foundation

/// What a listing found in a scope: the items that hold a key, and the items of this package's
/// schema whose attributes form no key (written by another program, or damaged), which are never
/// left out silently.
public struct KeychainListing: Hashable, Sendable {
    /// One description per key, sorted by key (``KeychainKey/listingOrder(_:_:)``).
    public var items: [KeychainItemInfo]
    /// The items of the schema that hold no valid key, sorted by their identifier.
    public var unrecognized: [UnrecognizedKeychainItem]

    public init(items: [KeychainItemInfo], unrecognized: [UnrecognizedKeychainItem] = []) {
        self.items = items
        self.unrecognized = unrecognized
    }
}

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
