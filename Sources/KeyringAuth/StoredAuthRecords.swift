import Foundation
import SecretKeychain

/// A stored user as the keychain holds it, for tools that inspect stored state without signing
/// anyone in or out (the `keyring-auth` CLI's `list` and `show`). Holds the tokens: print them
/// only when asked.
public struct StoredUserSnapshot: Hashable, Sendable {
    public let uid: String
    public let isAnonymous: Bool
    public let email: String?
    public let displayName: String?
    /// The provider IDs linked to the account, for example `password`.
    public let providers: [String]
    public let tenantID: String?
    /// The API key the user signed in with.
    public let apiKey: String
    /// The app that stored the record.
    public let appID: String
    public let tokens: AuthTokens

    init(_ record: StoredUserRecord) {
        uid = record.uid
        isAnonymous = record.isAnonymous
        email = record.email
        displayName = record.displayName
        providers = record.providerData.map(\.providerID)
        tenantID = record.tenantID
        apiKey = record.apiKey
        appID = record.appID
        tokens = record.tokens
    }
}

/// One Firebase-keyed user item in a store: where it is, and what it holds (or why it cannot be read).
public struct StoredAuthRecord: Sendable {
    /// Where the record lives.
    public enum Scope: Hashable, Sendable {
        /// An app's private item: the app's name and ID, read off the item's account and service.
        case `private`(appName: String, appID: String)
        /// A group's shared item: the group and the API key (the item's service).
        case group(AccessGroup, apiKey: String)
    }

    public let key: KeychainKey
    public let scope: Scope
    /// When the item was last written.
    public let modified: Date
    /// The user, or ``AuthErrorCode/corruptStoredUser`` when the record does not decode.
    public let user: Result<StoredUserSnapshot, AuthError>

    /// Every stored user in `store`, private and shared, corrupt and oversized ones included;
    /// other items (group choices kept there by earlier versions, other programs' items) are left out.
    /// Sorted by scope, then key.
    /// ``inventory(in:)`` also describes the items of the schema that hold no key.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/keychainError``.
    public static func all(in store: any KeychainStore) throws(AuthError) -> [StoredAuthRecord] {
        try inventory(in: store).records
    }

    /// Every stored user in `store`, as ``all(in:)``, and every item of the keychain schema whose
    /// attributes form no key. A record over the size limit is not read: its `user` is a
    /// ``AuthErrorCode/keychainError`` with ``KeychainError/oversizedItem(_:size:limit:)``.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/keychainError``.
    public static func inventory(in store: any KeychainStore) throws(AuthError) -> StoredAuthInventory {
        let listing = try AuthError.catchingKeychain { () throws(KeychainError) in try store.listing(in: .all) }
        var records: [StoredAuthRecord] = []
        for item in listing.items {
            guard let scope = Scope(item.key) else { continue }
            let user: Result<StoredUserSnapshot, AuthError>
            if item.isOversized {
                let error = KeychainError.oversizedItem(
                    item.key.description, size: item.size, limit: KeychainLimits.maximumSecretSize)
                user = .failure(.keychain(error))
            } else {
                let data: Data?
                do throws(KeychainError) {
                    data = try store.data(for: item.key)
                } catch .oversizedItem(let name, let size, let limit) {
                    // Grew since the listing.
                    records.append(StoredAuthRecord(
                        key: item.key, scope: scope, modified: item.modified,
                        user: .failure(.keychain(.oversizedItem(name, size: size, limit: limit)))))
                    continue
                } catch {
                    throw .keychain(error)
                }
                guard let data else { continue }  // removed since the listing
                user = Result { () throws(AuthError) in StoredUserSnapshot(try StoredUserRecord.decode(data, key: item.key)) }
            }
            records.append(StoredAuthRecord(key: item.key, scope: scope, modified: item.modified, user: user))
        }
        return StoredAuthInventory(
            records: records.sorted { KeychainKey.listingOrder($0.key, $1.key) }, unrecognized: listing.unrecognized)
    }

    /// The user stored for `options` in `group` (`nil`: the app's private item), or `nil`.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/corruptStoredUser`` or ``AuthErrorCode/keychainError``.
    public static func user(
        of options: AuthAppOptions, in group: AccessGroup?, store: any KeychainStore
    ) throws(AuthError) -> StoredUserSnapshot? {
        let key = StoredUserKeys.user(options, in: group)
        let data = try AuthError.catchingKeychain { () throws(KeychainError) in try store.data(for: key) }
        return try data.map { (data) throws(AuthError) in StoredUserSnapshot(try StoredUserRecord.decode(data, key: key)) }
    }

    /// The key of the user item of `options` in `group` (`nil`: the app's private item).
    public static func key(of options: AuthAppOptions, in group: AccessGroup?) -> KeychainKey {
        StoredUserKeys.user(options, in: group)
    }
}

/// What ``StoredAuthRecord/inventory(in:)`` found: the stored users, and the items of the keychain
/// schema that hold no key (listed, never read, never changed).
public struct StoredAuthInventory: Sendable {
    /// The stored users, as ``StoredAuthRecord/all(in:)`` returns them.
    public let records: [StoredAuthRecord]
    /// Items of the schema whose attributes form no key: written by another program, or damaged.
    public let unrecognized: [UnrecognizedKeychainItem]
}

extension StoredAuthRecord.Scope {
    /// The scope of a Firebase-keyed user item, or `nil` for any other item.
    init?(_ key: KeychainKey) {
        if let group = key.accessGroup {
            guard key.account == "firebase_auth_firebase_user" else { return nil }
            self = .group(group, apiKey: key.service)
            return
        }
        let prefix = "firebase_auth_1_", suffix = "_firebase_user"
        guard key.service.hasPrefix("firebase_auth_"), key.account.hasPrefix(prefix), key.account.hasSuffix(suffix),
            key.account.count > prefix.count + suffix.count
        else { return nil }
        let appName = String(key.account.dropFirst(prefix.count).dropLast(suffix.count))
        self = .private(appName: appName, appID: String(key.service.dropFirst("firebase_auth_".count)))
    }
}
