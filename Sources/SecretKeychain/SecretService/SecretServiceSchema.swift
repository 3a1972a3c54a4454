/// How a ``KeychainKey`` maps onto a Secret Service item. Other apps, other languages and later
/// versions of this package find items by exactly these names, so they never change within a
/// schema version; the "Using the store" article's mapping table and a test pin them.
public enum SecretServiceSchema {
    /// The schema name, stored in the `xdg:schema` attribute as libsecret does.
    public static let name = "org.keyringauth.KeychainItem.v1"

    /// The attribute holding the schema name.
    public static let schemaAttribute = "xdg:schema"
    /// The attribute holding ``KeychainKey/service``.
    public static let serviceAttribute = "service"
    /// The attribute holding ``KeychainKey/account``.
    public static let accountAttribute = "account"
    /// The attribute telling private items (`private`) from shared ones (`group`).
    public static let scopeAttribute = "scope"
    /// The attribute holding ``KeychainKey/accessGroup``; present only on shared items.
    public static let accessGroupAttribute = "access-group"

    /// The ``scopeAttribute`` value of items stored with no access group.
    public static let privateScope = "private"
    /// The ``scopeAttribute`` value of items shared in an access group.
    public static let groupScope = "group"

    /// The content type other clients commonly give text secrets (`secret-tool store` does). The
    /// store no longer sends it: see ``contentType(for:)``.
    public static let textContentType = "text/plain"
    /// The content type the store sends every secret with.
    public static let binaryContentType = "application/octet-stream"

    /// The complete attribute set of the item stored under `key`. It holds nothing that differs
    /// between writers, so every app writing the same key replaces the same item.
    public static func attributes(for key: KeychainKey) -> [String: String] {
        var attributes = [
            schemaAttribute: name,
            serviceAttribute: key.service,
            accountAttribute: key.account,
        ]
        if let group = key.accessGroup {
            attributes[scopeAttribute] = groupScope
            attributes[accessGroupAttribute] = group.rawValue
        } else {
            attributes[scopeAttribute] = privateScope
        }
        return attributes
    }

    /// The attributes that select the items of `scope`.
    public static func attributes(for scope: KeychainScope) -> [String: String] {
        switch scope {
        case .all:
            return [schemaAttribute: name]
        case .ungrouped:
            return [schemaAttribute: name, scopeAttribute: privateScope]
        case .group(let group):
            return [schemaAttribute: name, scopeAttribute: groupScope, accessGroupAttribute: group.rawValue]
        }
    }

    /// The key an item's attributes describe, or why they describe none.
    static func key(from attributes: [String: String]) -> Result<KeychainKey, KeychainError> {
        func corrupt(_ reason: String) -> Result<KeychainKey, KeychainError> {
            .failure(.corruptItem("with attributes \(attributes.sorted { $0.key < $1.key })", reason: reason))
        }
        guard attributes[schemaAttribute] == name else { return corrupt("it is not of schema \(name)") }
        guard let service = attributes[serviceAttribute], let account = attributes[accountAttribute] else {
            return corrupt("the \(serviceAttribute) or \(accountAttribute) attribute is missing")
        }
        switch attributes[scopeAttribute] {
        case privateScope:
            return .success(KeychainKey(service: service, account: account))
        case groupScope:
            guard let raw = attributes[accessGroupAttribute] else {
                return corrupt("a shared item has no \(accessGroupAttribute) attribute")
            }
            do {
                return .success(KeychainKey(service: service, account: account, accessGroup: try AccessGroup(raw)))
            } catch {
                return corrupt(error.description)
            }
        default:
            return corrupt("the \(scopeAttribute) attribute is neither \(privateScope) nor \(groupScope)")
        }
    }

    /// The content type a secret is stored with: ``binaryContentType`` for every secret, text
    /// included. KeePassXC stores a `text/plain` secret (or one of a type it counts as text, such
    /// as `application/json`) as its entry's password and resolves KeePass placeholders in it when
    /// it is read: `{TITLE}`, `{USERNAME}`, `{URL}`, `{S:…}`, `{REF:…}`, `{DT_…}` are replaced,
    /// `{PASSWORD}` recursively, so a stored user with such text in a field (a display name, say)
    /// came back changed or no longer JSON. KWallet stores `text/*` secrets as text. Every provider
    /// returns `application/octet-stream` secrets byte for byte, and `secret-tool lookup` prints them.
    public static func contentType(for secret: some Collection<UInt8>) -> String {
        binaryContentType
    }
}
