/// A change to one stored item, as an observation of a ``KeychainStore`` reports it.
///
/// A change says which key to read again, not what the item now holds: read it to know. Changes
/// made by this process are reported too.
public struct KeychainChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the item.
    public enum Kind: String, Hashable, Sendable {
        /// The item was written, or may have changed (after the provider restarted, say).
        case stored
        /// The item was removed.
        case removed
    }

    /// The key of the item that changed.
    public var key: KeychainKey
    /// What happened to it.
    public var kind: Kind

    public init(key: KeychainKey, kind: Kind) {
        self.key = key
        self.kind = kind
    }

    public var description: String { "\(kind.rawValue) \(key)" }
}
