import Foundation
import SecretKeychain

/// One Firebase-keyed user item in a store: where it is, and what it holds (or why it cannot be read).
package struct StoredUserItem: Sendable {
    /// Where the record lives.
    package enum Scope: Hashable, Sendable {
        /// An app's private item: the app's name and ID, read off the item's account and service.
        case `private`(appName: String, appID: String)
        /// A group's shared item: the group and the API key (the item's service).
        case group(AccessGroup, apiKey: String)
    }

    package let key: KeychainKey
    package let scope: Scope
    /// When the item was last written.
    package let modified: Date
    /// The user, or ``AuthErrorCode/corruptStoredUser`` when the record does not decode.
    package let user: Result<StoredUserSummary, AuthError>

    /// Every stored user in `store`, private and shared, corrupt and oversized ones included;
    /// other items (group choices kept there by earlier versions, other programs' items) are left out.
    /// Sorted by scope, then key.
    /// ``inventory(in:)`` also describes the items of the schema that hold no key.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/keychainError``.
    package static func all(in store: any KeychainStore) throws(AuthError) -> [StoredUserItem] {
        try inventory(in: store).records
    }

    /// Every stored user in `store`, as ``all(in:)``, and every item of the keychain schema whose
    /// attributes form no key. A record over the size limit is not read: its `user` is a
    /// ``AuthErrorCode/keychainError`` with ``KeychainError/oversizedItem(_:size:limit:)``.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/keychainError``.
    package static func inventory(in store: any KeychainStore) throws(AuthError) -> StoredUserInventory {
        let listing = try AuthError.catchingKeychain { () throws(KeychainError) in try store.listing(in: .all) }
        var records: [StoredUserItem] = []
        for item in listing.items {
            guard let scope = StoredUserKeys.scope(of: item.key) else { continue }
            let user: Result<StoredUserSummary, AuthError>
            if item.isOversized {
                let error = KeychainError.oversizedItem(
                    item.key.description, size: item.size, limit: KeychainLimits.maximumSecretSize)
                user = .failure(.keychain(error))
            } else {
                let record: Result<StoredUserRecord, AuthError>?
                do throws(KeychainError) {
                    record = try store.userRecord(for: item.key)
                } catch .oversizedItem(let name, let size, let limit) {
                    // Grew since the listing.
                    records.append(StoredUserItem(
                        key: item.key, scope: scope, modified: item.modified,
                        user: .failure(.keychain(.oversizedItem(name, size: size, limit: limit)))))
                    continue
                } catch {
                    throw .keychain(error)
                }
                guard let record else { continue }  // removed since the listing
                user = record.map(StoredUserSummary.init)
            }
            records.append(StoredUserItem(key: item.key, scope: scope, modified: item.modified, user: user))
        }
        return StoredUserInventory(
            records: records.sorted { KeychainKey.listingOrder($0.key, $1.key) }, unrecognized: listing.unrecognized)
    }

    /// The user stored for `options` in `group` (`nil`: the app's private item), or `nil`.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/corruptStoredUser`` or ``AuthErrorCode/keychainError``.
    package static func user(
        of options: AuthAppOptions, in group: AccessGroup?, store: any KeychainStore
    ) throws(AuthError) -> StoredUserSummary? {
        let key = StoredUserKeys.user(options, in: group)
        let record = try AuthError.catchingKeychain { () throws(KeychainError) in try store.userRecord(for: key) }
        return try record.map { (record) throws(AuthError) in StoredUserSummary(try record.get()) }
    }

    /// The key of the user item of `options` in `group` (`nil`: the app's private item).
    package static func key(of options: AuthAppOptions, in group: AccessGroup?) -> KeychainKey {
        StoredUserKeys.user(options, in: group)
    }
}
