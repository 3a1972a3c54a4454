/// Names one stored item: a service, an account, and the access group it is shared in.
///
/// Two keys name the same item when all three parts are equal. An item stored with
/// `accessGroup == nil` lives in the writing app's private scope and is never found
/// by a lookup in a group, nor the other way round.
public struct KeychainKey: Hashable, Sendable, CustomStringConvertible {
    /// The service, for example `firebase_auth_1:1234:linux:abcd`.
    public var service: String
    /// The account within the service.
    public var account: String
    /// The group the item is shared in, or `nil` for the app's private scope.
    public var accessGroup: AccessGroup?

    public init(service: String, account: String, accessGroup: AccessGroup? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    public var description: String {
        "\(service)/\(account) in \(accessGroup.map { "group \($0)" } ?? "the private scope")"
    }

    /// Checks the parts a store cannot hold: an empty service or account, or a NUL character.
    ///
    /// - Throws: ``KeychainError/invalidKey(_:reason:)``.
    func validate() throws(KeychainError) {
        for (name, value) in [("service", service), ("account", account)] {
            if value.isEmpty {
                throw .invalidKey(self, reason: "the \(name) is empty")
            }
            if value.utf8.contains(0) {
                throw .invalidKey(self, reason: "the \(name) contains a NUL character")
            }
        }
    }
}

extension KeychainKey {
    /// The order listings use: private items first, then by group, service and account.
    public static func listingOrder(_ lhs: KeychainKey, _ rhs: KeychainKey) -> Bool {
        func rank(_ key: KeychainKey) -> (Int, String, String, String) {
            (key.accessGroup == nil ? 0 : 1, key.accessGroup?.rawValue ?? "", key.service, key.account)
        }
        return rank(lhs) < rank(rhs)
    }
}
