import CSecret
import FoundationEssentials
import KeyringAuth
import SecretKeychain
import SystemSupport

/// A call of the item interface (`io.github.keyringauth.Keychain1`), its arguments read and checked on arrival:
/// only the items KeyringAuth's `Auth` keeps, in bounded sizes.
struct KeychainRequest: Sendable {
    enum Operation: Sendable {
        case lookup(KeychainKey)
        case store(KeychainKey, label: String, secret: Data)
        case remove(KeychainKey)
        case list(ListScope)
        case removeAll(AccessGroup)
        case follow
        case unfollow
    }

    /// What `List` covers.
    enum ListScope: Sendable {
        case privateScope
        case group(AccessGroup)
        /// The private scope and every group the caller may use.
        case all
    }

    /// The largest service, account and label taken, in bytes.
    static let maximumStringSize = 1024

    /// The scope the call touches, which the access policy checks first (`nil`: the caller's private scope).
    let group: AccessGroup?
    let operation: Operation

    init(_ call: MethodCall) throws(BrokerError) {
        let parameters = call.parameters
        func group(at index: Int) throws(BrokerError) -> AccessGroup? {
            let raw = GVariantValues.string(at: index, of: parameters)
            guard !raw.isEmpty else { return nil }
            do throws(KeychainError) {
                return try AccessGroup(raw)
            } catch {
                throw BrokerError(.invalidArgument, "\(error.description) Pass \"\" for the app's private scope.")
            }
        }
        func string(_ index: Int, _ name: String) throws(BrokerError) -> String {
            let value = GVariantValues.string(at: index, of: parameters)
            try BrokerArguments.checkString(value, of: name, limit: Self.maximumStringSize)
            return value
        }
        func key(in group: AccessGroup?) throws(BrokerError) -> KeychainKey {
            let key = KeychainKey(service: try string(1, "service"), account: try string(2, "account"), accessGroup: group)
            guard StoredUserKeys.isAuthItem(key) else {
                throw BrokerError(.invalidArgument, "The broker keeps only the items of KeyringAuth's Auth: in a group the account "
                    + "firebase_auth_firebase_user, in the private scope a service firebase_auth_… and an account firebase_auth_1_…; "
                    + "not \(BrokerArguments.quoted(key.service))/\(BrokerArguments.quoted(key.account)).")
            }
            return key
        }
        switch call.method {
        case "Lookup":
            self.group = try group(at: 0)
            operation = .lookup(try key(in: self.group))
        case "Store":
            self.group = try group(at: 0)
            let key = try key(in: self.group)
            let label = try string(3, "label")
            let secret = GVariantValues.bytes(at: 4, of: parameters)
            guard secret.count <= KeychainQuota.maximumSecretSize else {
                throw BrokerError(.invalidArgument, "The secret is \(secret.count) bytes; the broker keeps at most \(KeychainQuota.maximumSecretSize) "
                    + "(a user record is a few KiB).")
            }
            operation = .store(key, label: label, secret: secret)
        case "Remove":
            self.group = try group(at: 0)
            operation = .remove(try key(in: self.group))
        case "List":
            let scope = GVariantValues.string(at: 0, of: parameters)
            let named = try group(at: 1)
            switch (scope, named) {
            case ("private", nil): self.group = nil; operation = .list(.privateScope)
            case ("group", let named?): self.group = named; operation = .list(.group(named))
            case ("all", nil): self.group = nil; operation = .list(.all)
            default:
                throw BrokerError(.invalidArgument, "List takes the scope \"private\" or \"all\" with the group \"\", or \"group\" with a group.")
            }
        case "RemoveAll":
            guard let named = try group(at: 0) else {
                throw BrokerError(.invalidArgument, "RemoveAll takes an access group; remove the private scope's items one by one.")
            }
            self.group = named
            operation = .removeAll(named)
        case "Follow", "Unfollow":
            self.group = try group(at: 0)
            operation = call.method == "Follow" ? .follow : .unfollow
        default:
            throw BrokerError(.invalidArgument, "The item interface has no method \(BrokerArguments.quoted(call.method)).")
        }
    }
}
