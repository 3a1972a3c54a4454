import SecretKeychain

/// What ``StoredUserItem/inventory(in:)`` found: the stored users, and the items of the keychain
/// schema that hold no key (listed, never read, never changed).
package struct StoredUserInventory: Sendable {
    /// The stored users, as ``StoredUserItem/all(in:)`` returns them.
    package let records: [StoredUserItem]
    /// Items of the schema whose attributes form no key: written by another program, or damaged.
    package let unrecognized: [UnrecognizedKeychainItem]
}
