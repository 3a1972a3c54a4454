import FoundationEssentials

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
