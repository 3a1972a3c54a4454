/// Which items a listing or a bulk removal covers.
public enum KeychainScope: Hashable, Sendable {
    /// Every item this package stored, grouped or not.
    case all
    /// Only items stored with no access group (the private scope).
    case ungrouped
    /// Only items shared in one access group.
    case group(AccessGroup)

    /// Whether an item stored under `key` belongs to this scope.
    public func contains(_ key: KeychainKey) -> Bool {
        switch self {
        case .all: return true
        case .ungrouped: return key.accessGroup == nil
        case .group(let group): return key.accessGroup == group
        }
    }
}
