import Dispatch
import FoundationEssentials

/// A place to keep small secrets under a ``KeychainKey``: the Secret Service, or memory.
///
/// The requirements are synchronous and may block the calling thread (``SecretServiceStore``
/// waits on D-Bus): call them from a thread you own. From `async` code, call the `async` forms
/// (`try await store.data(for: key)`), which run the same requirements on the store's
/// ``blockingQueue`` and never block Swift's cooperative thread pool.
///
/// ## Implementation requirements
///
/// Code above the keychain (`Auth`, live sync) relies on every store behaving alike, so a store
/// must keep these rules; ``InMemoryStore`` is the reference, and the package's contract tests
/// run the same assertions against it and ``SecretServiceStore``.
///
/// - **Thread safety.** Every requirement may be called from any thread, several at once; the
///   store is `Sendable` and guards its own state.
/// - **Blocking.** A requirement may block its caller (on I/O or IPC) but must never wait for
///   work of Swift's cooperative pool (no `Task`, no `async` code waited on): its callers run it
///   on a queue or a thread of their own. A store whose calls block for long supplies a
///   ``blockingQueue`` of its own; the default is a concurrent queue shared by such stores.
/// - **Time bounds.** Every call returns within a bounded time: a store never waits forever on
///   another process; when its limit passes it throws ``KeychainError/timedOut(operation:limit:writes:)``,
///   saying whether a write's outcome is unknown.
/// - **Keys and scopes.** One item per key: a write replaces what the key held. A private key
///   (no access group) is never found in a group, nor a key of one group in another. Secrets up
///   to ``KeychainLimits/maximumSecretSize`` bytes are kept; larger ones throw
///   ``KeychainError/payloadTooLarge(size:limit:)`` and nothing is written.
/// - **Errors.** Every failure is a ``KeychainError``; absence is `nil`, `false` or `0`, never an
///   error, and a failed call leaves what was stored unchanged (except a write that timed out).
///   ``KeychainError/invalidKey(_:reason:)`` and ``KeychainError/invalidAccessGroup(_:violation:)``:
///   the input breaks a rule, nothing was touched. ``KeychainError/noSessionBus(detail:)``,
///   ``KeychainError/noProvider(detail:)``, ``KeychainError/noSuchCollection(_:detail:)`` and
///   ``KeychainError/locked(collection:)``: the backing storage cannot be reached or used now.
///   ``KeychainError/oversizedItem(_:size:limit:)`` and ``KeychainError/corruptItem(_:reason:)``:
///   a stored item cannot be read as a secret; it is left as it is. ``KeychainError/underlying(domain:code:message:)``:
///   anything else the storage reported.
/// - **Listings** never return a secret and are sorted by ``KeychainKey/listingOrder(_:_:)``.
/// - **Observations.** ``observeChanges(in:_:)`` returns once a change made after it returns will
///   be reported. The handler may be called on any thread (one of the store's), one change at a
///   time and in order; it is never called once ``KeychainObservation/cancel()`` has returned
///   (unless the handler itself cancelled). The observation ends by itself only when its source
///   is gone for good, telling why through ``KeychainObservation/whenEnded(_:)``. Observations
///   are made by this package's stores: a store of your own reports the changes of the store it
///   keeps its items in, by returning that store's observation.
public protocol KeychainStore: Sendable {
    /// The secret stored under `key`, or `nil` when nothing is.
    ///
    /// - Throws: ``KeychainError``; absence is `nil`, never an error.
    func data(for key: KeychainKey) throws(KeychainError) -> Data?

    /// The secret stored under `key`, for data that can tell whether it is intact (a JSON record that
    /// decodes): where the provider is known to return another value now and then without an error
    /// (KWallet 5's session bug), a secret `isIntact` refuses is read again on a fresh session before it
    /// is returned as it is. The default reads once, as ``data(for:)``.
    ///
    /// - Throws: ``KeychainError``; absence is `nil`, never an error.
    func data(for key: KeychainKey, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) -> Data?

    /// Stores `data` under `key`, replacing what was there, and leaves exactly one item for the key.
    ///
    /// - Parameters:
    ///   - data: The secret, at most ``KeychainLimits/maximumSecretSize`` bytes.
    ///   - key: Where to store it.
    ///   - label: A name a person understands in a keyring manager.
    /// - Throws: ``KeychainError``; on failure what was stored before is unchanged.
    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError)

    /// Stores `data` as ``setData(_:for:label:)`` does, for data that can tell whether it is intact: where the
    /// provider is known to store another value now and then without an error (KWallet 5's session bug), the
    /// secret is read back (checked by `isIntact`), and written again on a fresh session when the check refuses
    /// it. A secret that passes the check but differs was written by another process since: it is left. The
    /// default writes once, as ``setData(_:for:label:)``.
    ///
    /// - Throws: ``KeychainError``; on failure what was stored before is unchanged.
    func setData(_ data: Data, for key: KeychainKey, label: String, checkedBy isIntact: (Data) -> Bool) throws(KeychainError)

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
    /// learn its size, one item at a time. The default, for stores that hold nothing but valid
    /// keys, returns ``items(in:)`` and nothing unrecognized.
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

    /// The queue the `async` forms run this store's requirements on. The default is a concurrent
    /// queue shared by every store that supplies none; ``SecretServiceStore`` has a serial one of its own.
    var blockingQueue: DispatchQueue { get }
}
