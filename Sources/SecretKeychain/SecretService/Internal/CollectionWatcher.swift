import CSecret
import FoundationEssentials
import Logging
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Follows the item signals of a ``SecretServiceStore``'s collection (`ItemCreated`,
/// `ItemChanged`, `ItemDeleted`) on a thread of its own, and reports the changes of the items in
/// one scope to a ``KeychainObservation``.
///
/// The signals are subscribed from the provider's unique bus name; when another process takes
/// over `org.freedesktop.secrets` (the provider restarted), the watcher subscribes again from the
/// new owner, lists the scope's items again and reports every key that may have changed meanwhile.
/// Between signals the thread sleeps in its GLib main loop. The one exception is KeePassXC, which
/// announces no change made while it saves its database (see ``keePassXCRecheckInterval``): there
/// the watcher also compares the followed items' secrets with what it last saw, every few seconds.
///
/// The signals arrive on a bus connection of the watcher's own, made in its main context: when the
/// session bus goes away (the connection is closed), the watcher ends the observation with
/// ``KeychainError/noSessionBus(detail:)`` instead of waiting forever.
///
/// `@unchecked Sendable`: the mutable state is confined to the thread that owns the watcher's GLib
/// main context, and every method touching it checks so (``preconditionOwnsContext()``): the
/// caller of ``begin()`` while it subscribes, then the watcher's thread (its main loop and the
/// signal callbacks the loop dispatches, then ``finish()``). Other threads only call
/// ``startThread()`` once and ``stop()``, which posts to the main context (thread-safe in GLib)
/// and takes the thread handle under its lock.
final class CollectionWatcher: @unchecked Sendable {
    let store: SecretServiceStore
    let scope: KeychainScope
    /// Weak: the observation owns this watcher (to stop it); releasing it stops the watcher.
    weak var observation: KeychainObservation?
    let context: OpaquePointer
    let loop: OpaquePointer
    /// The watcher's thread, from ``startThread()`` until ``stop()`` joins or detaches it.
    let thread = Mutex<OwnThread.Handle?>(nil)

    // Owned by the thread that owns `context`.
    var bus: OpaquePointer?
    /// The handler of the connection's `closed` signal, 0 when none is connected.
    var closedHandler: gulong = 0
    var ownerSubscription: guint = 0
    var itemSubscription: guint = 0
    /// The provider's `CollectionChanged` signals (KWallet announces locking and unlocking only so).
    var collectionSubscription: guint = 0
    /// Whether the collection was locked when last seen. While it is, removals are not believed
    /// (KeePassXC announces every item deleted when it locks; a locked collection lists no items).
    var collectionLocked = false
    /// The unique bus name of the provider whose signals are followed, `nil` while there is none.
    var owner: String?
    var collectionPath: String?
    /// Whether the followed provider is KeePassXC, which needs two things the others do not: an
    /// `ItemCreated` is held like an `ItemChanged` (it sends the last `ItemChanged` of a new item
    /// after it has answered `CreateItem`; see ``itemSignal(_:collection:item:)``), and the items
    /// are re-checked (``recheckItems()``).
    var followsKeePassXC = false
    /// On KeePassXC, a digest of each followed item's secret as last seen (item path → digest).
    var digests: [String: Int] = [:]
    /// The repeating source of ``recheckItems()``, 0 when none is attached.
    var recheckSource: guint = 0
    /// The scope's items as last seen: item path → key.
    var known: [String: KeychainKey] = [:]
    /// Item signals received and not handled yet, in order (see ``itemSignal(_:collection:item:)``).
    var pending: [ItemSignal] = []
    /// The paths of the items in ``pending``, each there once.
    var pendingPaths: Set<String> = []
    /// Whether removals were believed when last asked, and until when that answer stands.
    var removalsBelieved: (Bool, until: ContinuousClock.Instant)?

    /// The attached sources that handle the queue, at once (idle) or when a hold ends; 0 for none.
    var pendingSources: (idle: guint, timer: guint) = (0, 0)

    /// The paths whose removal was reported (at most ``SecretServiceStore/writtenItemsKept``), so that the
    /// store's memory of its own writes does not report one twice.
    var forgotten: Set<String> = []

    /// The items of the scope that a listing showed and the signals had not (`appeared`), and the
    /// followed items it did not show (`went`), at the last re-check.
    var unannounced: (appeared: Set<String>, went: Set<String>) = ([], [])

    var logger: Logger { store.configuration.logger }

    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` when the process is out of descriptors.
    init(store: SecretServiceStore, scope: KeychainScope, observation: KeychainObservation) throws(KeychainError) {
        self.store = store
        self.scope = scope
        self.observation = observation
        context = try MainContexts.forKeychain()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Traps unless the calling thread owns the watcher's main context, the one thread allowed
    /// to touch the mutable state. One uncontended lock.
    func preconditionOwnsContext(file: StaticString = #fileID, line: UInt = #line) {
        precondition(
            g_main_context_is_owner(context) != 0, "CollectionWatcher state touched off its thread", file: file, line: line)
    }

    /// Follows the collection from the calling thread: resolves it, subscribes to the provider's
    /// ownership and item signals (dispatched to the watcher's main context, which nothing runs
    /// yet) and lists the scope's items. Blocks on D-Bus, each call bounded. On failure, everything
    /// is released again.
    ///
    /// - Throws: ``KeychainError`` when the changes cannot be followed (no bus, no provider, no
    ///   such collection).
    func begin() throws(KeychainError) {
        precondition(g_main_context_acquire(context) != 0, "a new watcher's main context is owned by another thread")
        defer { g_main_context_release(context) }
        do {
            try subscribeAndList()
        } catch {
            finish()
            throw error
        }
    }

    // MARK: On the thread that owns the main context

    /// Learns the followed provider's collection, whether it is locked, and how it announces a new item.
    @discardableResult
    func resolveCollection() throws(KeychainError) -> String {
        preconditionOwnsContext()
        let path: String
        (path, collectionLocked, followsKeePassXC) = try store.perform("Watching \(scope)", writes: false) {
            attempt throws(SecretServiceFailure) in
            (attempt.collectionPath, try attempt.client.collectionIsLocked(attempt.collectionPath),
             store.provider(using: attempt.client) == .keePassXC)
        }
        let before = collectionPath
        collectionPath = path
        // The item signals are followed at the collection's path: at its new one from now on.
        if before != path, itemSubscription != 0 { follow(owner) }
        return path
    }

    /// Resolves the collection, subscribes to the provider's ownership and its item signals, then
    /// lists the scope's items, in that order so that no change falls between the list and the signals.
    private func subscribeAndList() throws(KeychainError) {
        preconditionOwnsContext()
        let limit = store.configuration.timeout
        let path = try resolveCollection()
        let locked = collectionLocked
        if locked {
            logger.info("The watched collection is locked; its items are reported once it is unlocked and they change",
                        metadata: ["collection": "\(path)"])
        }
        let owner: String
        do throws(SecretServiceFailure) {
            let bus = try privateBus(limit: limit)
            self.bus = bus
            ownerSubscription = subscribe(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                path: "/org/freedesktop/DBus", arg0: SecretServiceClient.busName
            ) { _, _, _, _, _, parameters, watcher in
                guard let parameters, let watcher, GVariantValues.hasType(parameters, "(sss)") else { return }
                let newOwner = g_variant_get_child_value(parameters, 2)!
                defer { g_variant_unref(newOwner) }
                Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue().ownerChanged(to: GLib.string(of: newOwner))
            }
            owner = try SecretServiceClient.busDaemonCall(
                bus, "GetNameOwner", [g_variant_new_string(SecretServiceClient.busName)], limit: limit)
        } catch {
            throw store.keychainError(for: error, operation: "Watching \(scope)", writes: false)
        }
        follow(owner)
        known = try listItems()
        followKeePassXCsSilentChanges()
    }

    /// Whether the watched collection is locked now; `nil` when the provider could not tell.
    func isCollectionLocked() -> Bool? {
        preconditionOwnsContext()
        do throws(KeychainError) {
            return try store.perform("Checking the watched collection", writes: false) { attempt throws(SecretServiceFailure) in
                try attempt.client.collectionIsLocked(attempt.collectionPath)
            }
        } catch {
            logger.warning("Could not tell whether the watched collection is locked", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
