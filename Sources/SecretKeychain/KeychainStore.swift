import Foundation

/// A place to keep small secrets under a ``KeychainKey``: the Secret Service, or memory.
///
/// The synchronous requirements may block (``SecretServiceStore`` waits on D-Bus); call them from a
/// thread you own. The `async` forms never block the caller's executor: a store whose calls block
/// runs them on a thread of its own.
public protocol KeychainStore: Sendable {
    /// The secret stored under `key`, or `nil` when nothing is.
    ///
    /// - Throws: ``KeychainError``; absence is `nil`, never an error.
    func data(for key: KeychainKey) throws(KeychainError) -> Data?

    /// Stores `data` under `key`, replacing what was there, and leaves exactly one item for the key.
    ///
    /// - Parameter label: A name a person understands in a keyring manager.
    /// - Throws: ``KeychainError``; on failure what was stored before is unchanged.
    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError)

    /// Removes what is stored under `key`.
    ///
    /// - Returns: Whether anything was removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool

    /// Describes the items in `scope`, one per key, sorted by key. Never returns a secret. Items
    /// that hold no valid key are left out: ``listing(in:)`` describes them too.
    ///
    /// - Throws: ``KeychainError``.
    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo]

    /// Describes the items in `scope` as ``items(in:)`` does, and also the items of the schema
    /// whose attributes form no key. Never returns a secret; reads each item's secret only to
    /// learn its size, one item at a time.
    ///
    /// - Throws: ``KeychainError``.
    func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing

    /// Removes every item shared in `group`.
    ///
    /// - Returns: How many keys were removed.
    /// - Throws: ``KeychainError``; items removed before the failure stay removed.
    @discardableResult
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int

    /// Starts reporting the changes of the items in `scope`, made by any process (this one too),
    /// until the returned observation is cancelled or released. Returns once the observation is
    /// active: a change made after it returns is reported.
    ///
    /// `handler` is called for one change at a time, in order, on a thread of the store's; it must
    /// not block. ``SecretServiceStore`` follows the collection's D-Bus signals (no polling) and
    /// keeps following them when the provider restarts, and ends the observation by itself when the
    /// session bus goes away (``KeychainObservation/whenEnded(_:)``); ``InMemoryStore`` reports this
    /// process's writes.
    ///
    /// - Throws: ``KeychainError`` when the changes cannot be followed (no bus, no provider, no
    ///   such collection).
    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation

    /// The `async` form of ``observeChanges(in:_:)``.
    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) async throws(KeychainError) -> KeychainObservation

    /// The `async` form of ``data(for:)``.
    func data(for key: KeychainKey) async throws(KeychainError) -> Data?
    /// The `async` form of ``setData(_:for:label:)``.
    func setData(_ data: Data, for key: KeychainKey, label: String) async throws(KeychainError)
    /// The `async` form of ``removeData(for:)``.
    @discardableResult
    func removeData(for key: KeychainKey) async throws(KeychainError) -> Bool
    /// The `async` form of ``items(in:)``.
    func items(in scope: KeychainScope) async throws(KeychainError) -> [KeychainItemInfo]
    /// The `async` form of ``listing(in:)``.
    func listing(in scope: KeychainScope) async throws(KeychainError) -> KeychainListing
    /// The `async` form of ``removeAll(in:)``.
    @discardableResult
    func removeAll(in group: AccessGroup) async throws(KeychainError) -> Int
}

extension KeychainStore {
    // Default `async` forms for stores whose calls never block: they call the synchronous form in place.
    // Each synchronous call is made from a non-async closure, so overload resolution cannot pick the
    // `async` form again.

    public func data(for key: KeychainKey) async throws(KeychainError) -> Data? {
        let call = { () throws(KeychainError) -> Data? in try self.data(for: key) }
        return try call()
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) async throws(KeychainError) {
        let call = { () throws(KeychainError) in try self.setData(data, for: key, label: label) }
        try call()
    }

    @discardableResult
    public func removeData(for key: KeychainKey) async throws(KeychainError) -> Bool {
        let call = { () throws(KeychainError) -> Bool in try self.removeData(for: key) }
        return try call()
    }

    public func items(in scope: KeychainScope) async throws(KeychainError) -> [KeychainItemInfo] {
        let call = { () throws(KeychainError) -> [KeychainItemInfo] in try self.items(in: scope) }
        return try call()
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) async throws(KeychainError) -> Int {
        let call = { () throws(KeychainError) -> Int in try self.removeAll(in: group) }
        return try call()
    }

    /// For stores that hold nothing but valid keys: their items, nothing unrecognized.
    public func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing {
        KeychainListing(items: try items(in: scope))
    }

    public func listing(in scope: KeychainScope) async throws(KeychainError) -> KeychainListing {
        let call = { () throws(KeychainError) -> KeychainListing in try self.listing(in: scope) }
        return try call()
    }

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) async throws(KeychainError) -> KeychainObservation {
        let call = { () throws(KeychainError) -> KeychainObservation in try self.observeChanges(in: scope, handler) }
        return try call()
    }
}
