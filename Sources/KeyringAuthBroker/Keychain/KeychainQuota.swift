import KeyringAuth
import SecretKeychain

/// What `Keychain1` keeps for a sandboxed app: what an `Auth` keeps, with room to spare. An `Auth` keeps one item per
/// Firebase app in its private scope, and one per API key in a group, each a user record of a few KiB (tokens, profile,
/// providers, second factors); so an app gets at most ``maximumPerScope`` items in its private scope and in each group,
/// ``maximumPerApp`` in all the scopes it may use, each at most ``maximumSecretSize`` bytes. Replacing an item it has
/// is always allowed. The items counted are those the broker stored for the app (known by the label it wrote, which
/// names the app), so that other apps' items in a group take nothing from its share. A host process has no count
/// quota: it may write the keyring itself anyway.
enum KeychainQuota {
    static let maximumSecretSize = 32 * 1024
    static let maximumPerScope = 8
    static let maximumPerApp = 32

    /// Refuses a new item of `key` (the caller's own key) for `caller` when the items of `visible` (every item the
    /// caller may use, by its own keys) that the broker stored for it already hold the app's share.
    static func check(storing key: KeychainKey, for caller: Caller, among visible: [KeychainItemInfo]) throws(BrokerError) {
        guard !visible.contains(where: { $0.key == key }) else { return }
        let existing = visible.filter { $0.label == label(of: $0.key, for: caller) }
        let scope = key.accessGroup.map { "the group \($0)" } ?? "its private scope"
        guard existing.count(where: { $0.key.accessGroup == key.accessGroup }) < maximumPerScope else {
            throw BrokerError(.invalidArgument, "This app keeps \(maximumPerScope) items in \(scope), the most the broker keeps for one "
                + "app there (an Auth keeps one per Firebase app or API key); remove one first.")
        }
        guard existing.count < maximumPerApp else {
            throw BrokerError(.invalidArgument, "This app keeps \(maximumPerApp) items in the scopes it may use, the most the broker keeps "
                + "for one app; remove one first.")
        }
    }

    /// The label the broker writes for an item of `key` stored for `caller`: fixed words naming the scope and the app,
    /// never the caller's text.
    static func label(of key: KeychainKey, for caller: Caller) -> String {
        "Firebase user of \(key.accessGroup.map { "group \($0)" } ?? "a private scope"), kept by keyring-auth-broker for \(caller)"
    }
}
