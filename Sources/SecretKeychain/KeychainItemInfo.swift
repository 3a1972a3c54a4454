import FoundationEssentials

/// What a listing tells about one stored item. It never holds the secret itself.
public struct KeychainItemInfo: Hashable, Sendable {
    /// The key the item is stored under.
    public var key: KeychainKey
    /// The human-readable label shown by keyring managers such as Seahorse.
    public var label: String
    /// When the item was first stored.
    public var created: Date
    /// When the item was last written.
    public var modified: Date
    /// The size of the secret in bytes.
    public var size: Int

    /// Whether the secret is over ``KeychainLimits/maximumSecretSize``: reading it throws
    /// ``KeychainError/oversizedItem(_:size:limit:)``.
    public var isOversized: Bool { size > KeychainLimits.maximumSecretSize }

    public init(key: KeychainKey, label: String, created: Date, modified: Date, size: Int) {
        self.key = key
        self.label = label
        self.created = created
        self.modified = modified
        self.size = size
    }
}
