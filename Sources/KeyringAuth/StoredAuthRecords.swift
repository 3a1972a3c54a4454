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

    /// Every stored user in `store`, private and shared, corrupt ones included; other items
    /// (group choices, other programs' items) are left out. Sorted by scope, then key.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/keychainError``.
    public static func all(in store: any KeychainStore) throws(AuthError) -> [StoredAuthRecord] {
        let items = try AuthError.catchingKeychain { () throws(KeychainError) in try store.items(in: .all) }
        var records: [StoredAuthRecord] = []
        for item in items {
            guard let scope = Scope(item.key) else { continue }
            let data = try AuthError.catchingKeychain { () throws(KeychainError) in try store.data(for: item.key) }
            guard let data else { continue }  // removed since the listing
            let user = Result { () throws(AuthError) in StoredUserSnapshot(try StoredUserRecord.decode(data, key: item.key)) }
            records.append(StoredAuthRecord(key: item.key, scope: scope, modified: item.modified, user: user))
        }
        return records.sorted { KeychainKey.listingOrder($0.key, $1.key) }
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
