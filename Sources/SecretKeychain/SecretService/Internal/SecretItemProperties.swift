import FoundationEssentials

/// Properties of one item, read over D-Bus.
struct SecretItemProperties {
    var path: String
    var label: String
    var attributes: [String: String]
    var created: Date
    var modified: Date

    /// Newest first: by modification time, then creation time, then the provider's item number.
    static func isNewer(_ lhs: SecretItemProperties, than rhs: SecretItemProperties) -> Bool {
        func rank(_ item: SecretItemProperties) -> (Date, Date, Int, String) {
            (item.modified, item.created, Int(item.path.split(separator: "/").last ?? "") ?? -1, item.path)
        }
        return rank(lhs) > rank(rhs)
    }
}
