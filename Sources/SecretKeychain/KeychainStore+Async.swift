import Dispatch
import FoundationEssentials
import SystemSupport

// The `async` forms of every store: each runs the synchronous requirement on the store's
// `blockingQueue`, so a store that blocks never blocks Swift's cooperative pool. Each synchronous
// call is made from a non-async closure, so overload resolution cannot pick the `async` form again.
extension KeychainStore {
    /// The `async` form of ``data(for:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``data(for:)``.
    public func data(for key: KeychainKey) async throws(KeychainError) -> Data? {
        try await blockingQueue.run { () throws(KeychainError) in try self.data(for: key) }
    }

    /// The `async` form of ``setData(_:for:label:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``setData(_:for:label:)``.
    public func setData(_ data: Data, for key: KeychainKey, label: String) async throws(KeychainError) {
        try await blockingQueue.run { () throws(KeychainError) in try self.setData(data, for: key, label: label) }
    }

    /// The `async` form of ``removeData(for:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``removeData(for:)``.
    @discardableResult
    public func removeData(for key: KeychainKey) async throws(KeychainError) -> Bool {
        try await blockingQueue.run { () throws(KeychainError) in try self.removeData(for: key) }
    }

    /// The `async` form of ``items(in:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``items(in:)``.
    public func items(in scope: KeychainScope) async throws(KeychainError) -> [KeychainItemInfo] {
        try await blockingQueue.run { () throws(KeychainError) in try self.items(in: scope) }
    }

    /// The `async` form of ``listing(in:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``listing(in:)``.
    public func listing(in scope: KeychainScope) async throws(KeychainError) -> KeychainListing {
        try await blockingQueue.run { () throws(KeychainError) in try self.listing(in: scope) }
    }

    /// The `async` form of ``removeAll(in:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``removeAll(in:)``.
    @discardableResult
    public func removeAll(in group: AccessGroup) async throws(KeychainError) -> Int {
        try await blockingQueue.run { () throws(KeychainError) in try self.removeAll(in: group) }
    }

    /// The `async` form of ``observeChanges(in:_:)``, run on ``blockingQueue``.
    ///
    /// - Throws: ``KeychainError``, as ``observeChanges(in:_:)``.
    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) async throws(KeychainError) -> KeychainObservation {
        try await blockingQueue.run { () throws(KeychainError) in try self.observeChanges(in: scope, handler) }
    }
}

// Defaults of the requirements a store may leave out.
extension KeychainStore {
    /// Reads once, as ``data(for:)``: only a provider known to garble secrets needs more.
    public func data(for key: KeychainKey, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) -> Data? {
        try data(for: key)
    }

    /// Writes once, as ``setData(_:for:label:)``: only a provider known to garble secrets needs more.
    public func setData(_ data: Data, for key: KeychainKey, label: String, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) {
        try setData(data, for: key, label: label)
    }

    /// For stores that hold nothing but valid keys: their items, nothing unrecognized.
    ///
    /// - Throws: ``KeychainError``, as ``items(in:)``.
    public func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing {
        KeychainListing(items: try items(in: scope))
    }

    /// A concurrent queue shared by every store that supplies none.
    public var blockingQueue: DispatchQueue { sharedBlockingQueue }
}

/// Where the `async` forms of stores without a queue of their own run their calls.
private let sharedBlockingQueue = DispatchQueue(label: "SecretKeychain.KeychainStore.blocking", attributes: .concurrent)
