import SecretKeychain

/// Where users are stored: Firebase's keys, built and read back in this one place, so every app
/// with one API key in one group shares exactly one item.
package enum StoredUserKeys {
    private static let privateServicePrefix = "firebase_auth_"
    private static let privateAccountPrefix = "firebase_auth_1_"
    private static let privateAccountSuffix = "_firebase_user"
    private static let sharedAccount = "firebase_auth_firebase_user"

    /// The app's private item: service `firebase_auth_<appID>`, account `firebase_auth_1_<appName>_firebase_user`.
    static func privateUser(_ options: AuthAppOptions) -> KeychainKey {
        KeychainKey(
            service: privateServicePrefix + options.appID,
            account: privateAccountPrefix + options.appName + privateAccountSuffix)
    }

    /// The shared item of `group`: service = the API key, account `firebase_auth_firebase_user`.
    static func sharedUser(_ options: AuthAppOptions, in group: AccessGroup) -> KeychainKey {
        KeychainKey(service: options.apiKey, account: sharedAccount, accessGroup: group)
    }

    /// The item where the stored user of `group` lives (`nil`: the private scope).
    static func user(_ options: AuthAppOptions, in group: AccessGroup?) -> KeychainKey {
        group.map { sharedUser(options, in: $0) } ?? privateUser(options)
    }

    /// The private item in which earlier versions of KeyringAuth remembered the app's access group;
    /// read once to move the choice to ``AccessGroupChoices``, then removed.
    static func legacyAccessGroupChoice(_ options: AuthAppOptions) -> KeychainKey {
        KeychainKey(
            service: privateServicePrefix + options.appID, account: privateAccountPrefix + options.appName + "_user_access_group")
    }

    /// The scope of a user item, read back from its key, or `nil` for any other item.
    static func scope(of key: KeychainKey) -> StoredUserItem.Scope? {
        if let group = key.accessGroup {
            return key.account == sharedAccount ? .group(group, apiKey: key.service) : nil
        }
        let account = key.account
        guard key.service.hasPrefix(privateServicePrefix), account.hasPrefix(privateAccountPrefix),
            account.hasSuffix(privateAccountSuffix), account.count > privateAccountPrefix.count + privateAccountSuffix.count
        else { return nil }
        let appName = String(account.dropFirst(privateAccountPrefix.count).dropLast(privateAccountSuffix.count))
        return .private(appName: appName, appID: String(key.service.dropFirst(privateServicePrefix.count)))
    }

    // MARK: The broker's item interface

    /// Whether `key` names an item `Auth` keeps: the user item of a group, or a private item of the app
    /// (service `firebase_auth_…`, account `firebase_auth_1_…`). The broker serves these and no other.
    package static func isAuthItem(_ key: KeychainKey) -> Bool {
        if key.accessGroup != nil { return key.account == sharedAccount }
        return key.service.hasPrefix(privateServicePrefix) && key.account.hasPrefix(privateAccountPrefix)
            && key.account.count > privateAccountPrefix.count
    }

    /// `key` as the broker stores it for a caller whose private scope is `namespace` (`flatpak:APP-ID:`, the
    /// prefix the broker gives such a caller's app names; `""` for a host process): a private item's app name
    /// gets the prefix, so that it is the item the broker's own calls keep for that app. Group items are as they are.
    package static func brokered(_ key: KeychainKey, privateNamespace namespace: String) -> KeychainKey {
        guard key.accessGroup == nil, !namespace.isEmpty else { return key }
        var key = key
        key.account = privateAccountPrefix + namespace + key.account.dropFirst(privateAccountPrefix.count)
        return key
    }

    /// The key a caller whose private scope is `namespace` knows a stored item by, or `nil` when the item is
    /// not that caller's (another app's private item, or no item of `Auth`'s).
    package static func unbrokered(_ key: KeychainKey, privateNamespace namespace: String) -> KeychainKey? {
        guard isAuthItem(key) else { return nil }
        guard key.accessGroup == nil, !namespace.isEmpty else { return key }
        let prefix = privateAccountPrefix + namespace
        guard key.account.hasPrefix(prefix), key.account.count > prefix.count else { return nil }
        var key = key
        key.account = privateAccountPrefix + key.account.dropFirst(prefix.count)
        return key
    }
}
