import Dispatch
import Foundation
import Logging
import SecretKeychain

// Stored state: the user items and the group choice, read and written in Firebase's layout, with
// Firebase's tenant rule on every user that becomes current.
extension Auth {
    static func describe(_ group: AccessGroup?) -> String {
        group.map { "group \($0)" } ?? "the private scope"
    }

    /// The user stored in `group`, as a new ``User`` of this app, or `nil`.
    ///
    /// - Throws: ``AuthError``: a keychain failure, a corrupt record, or a user of another tenant
    ///   (``AuthErrorCode/tenantIDMismatch``); the item is left as it is.
    func readAdoptableUser(in group: AccessGroup?) throws(AuthError) -> User? {
        guard let record = try Self.readRecord(configuration, in: group) else { return nil }
        try checkTenant(of: record, from: "The user stored in \(Self.describe(group))")
        return User(record: record, auth: self)
    }

    /// Firebase's rule: a user becomes current only in an app of the same tenant (or both none), the
    /// app's tenant being ``tenantID`` (the options' tenant unless the app set another).
    func checkTenant(of record: StoredUserRecord, from source: String) throws(AuthError) {
        let tenant = tenantID
        guard record.tenantID != tenant else { return }
        throw AuthError(
            .tenantIDMismatch,
            "\(source) belongs to tenant \(record.tenantID ?? "none"), this app to \(tenant ?? "none"); "
                + "it was left as it is. Use the same tenantID in every app of a group.")
    }

    func save(_ record: StoredUserRecord, in group: AccessGroup?) throws(AuthError) {
        try AuthError.catchingKeychain { () throws(KeychainError) in
            try store.setUserRecordData(record.encoded(), for: StoredUserKeys.user(options, in: group), label: label(of: record.uid, in: group))
        }
    }

    /// Whether the user item of `group` still holds the sign-in this app holds for `user`: its uid and
    /// refresh token. Another process may have signed another user in, signed out, or signed the same
    /// account in again since this app last read the item; a write on `user`'s behalf then leaves the
    /// item alone. `nil` when the item cannot be decoded (it is left as it is too).
    func storeHoldsSignIn(of user: User, in group: AccessGroup?) throws(AuthError) -> Bool? {
        let stored: StoredUserRecord?
        do throws(AuthError) {
            stored = try Self.readRecord(configuration, in: group)
        } catch where error.code == .corruptStoredUser {
            return nil
        }
        let held = user.storedRecord
        return stored?.uid == held.uid && stored?.tokens.refreshToken == held.tokens.refreshToken
    }

    /// The item's label, for a person looking at the keyring: the user's uid when it is known.
    func label(of uid: String?, in group: AccessGroup?) -> String {
        "Firebase user\(uid.map { " \($0)" } ?? "") of \(group.map { "group \($0)" } ?? "app \(options.appName)")"
    }

    /// Puts back the bytes `previous` read from the user item of `group` before a step that is being
    /// undone (`nil`: deletes the item).
    func restore(_ previous: Data?, in group: AccessGroup?) throws(AuthError) {
        let key = StoredUserKeys.user(options, in: group)
        try AuthError.catchingKeychain { () throws(KeychainError) in
            if let previous {
                try store.setData(previous, for: key, label: label(of: nil, in: group))
            } else {
                try store.removeData(for: key)
            }
        }
    }

    /// The saved access-group choice; the first time, the one earlier versions kept in the keychain
    /// is moved to ``AuthConfiguration/groupChoices`` (and the keychain item removed).
    func loadGroupChoice() throws(AuthError) -> AccessGroup? {
        let choices = configuration.groupChoices
        if case .choice(let group) = try choices.saved(forAppID: options.appID) { return group }
        let legacyKey = StoredUserKeys.legacyAccessGroupChoice(options)
        let legacy = try AuthError.catchingKeychain { () throws(KeychainError) in try store.data(for: legacyKey) }
        let group = try legacy.map { (data) throws(AuthError) -> AccessGroup in
            do throws(KeychainError) {
                return try AccessGroup(String(validating: data, as: UTF8.self) ?? "\u{FFFD}")
            } catch {
                throw AuthError(
                    .accessGroupChoiceError,
                    "The access-group choice an earlier version kept in the keychain (\(legacyKey)) is not valid: \(error). "
                        + "It was left as it is; remove it with `secret-tool clear service \(legacyKey.service) account "
                        + "\(legacyKey.account)`, or call useUserAccessGroup to choose.")
            }
        }
        try choices.save(group, forAppID: options.appID)
        if legacy != nil {
            do throws(KeychainError) {
                try store.removeData(for: legacyKey)
                logger.info("Moved the access-group choice out of the keychain", metadata: ["group": "\(Self.describe(group))"])
            } catch {
                logger.warning(
                    "Moved the access-group choice out of the keychain, but the old item could not be removed; it is ignored",
                    metadata: ["error": "\(error)"])
            }
        }
        return group
    }

    static func readRecord(_ configuration: AuthConfiguration, in group: AccessGroup?) throws(AuthError) -> StoredUserRecord? {
        let key = StoredUserKeys.user(configuration.options, in: group)
        let record = try AuthError.catchingKeychain { () throws(KeychainError) in try configuration.store.userRecord(for: key) }
        return try record?.get()
    }
}
