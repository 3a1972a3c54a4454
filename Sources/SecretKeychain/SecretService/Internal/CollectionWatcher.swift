import CSecret
import FoundationEssentials
import Logging
import Synchronization

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
    private let store: SecretServiceStore
    private let scope: KeychainScope
    /// Weak: the observation owns this watcher (to stop it); releasing it stops the watcher.
    private weak var observation: KeychainObservation?
    private let context: OpaquePointer
    private let loop: OpaquePointer
    /// The watcher's thread, from ``startThread()`` until ``stop()`` joins or detaches it.
    private let thread = Mutex<pthread_t?>(nil)

    // Owned by the thread that owns `context`.
    private var bus: OpaquePointer?
    /// The handler of the connection's `closed` signal, 0 when none is connected.
    private var closedHandler: gulong = 0
    private var ownerSubscription: guint = 0
    private var itemSubscription: guint = 0
    /// The provider's `CollectionChanged` signals (KWallet announces locking and unlocking only so).
    private var collectionSubscription: guint = 0
    /// Whether the collection was locked when last seen. While it is, removals are not believed
    /// (KeePassXC announces every item deleted when it locks; a locked collection lists no items).
    private var collectionLocked = false
    /// The unique bus name of the provider whose signals are followed, `nil` while there is none.
    private var owner: String?
    private var collectionPath: String?
    /// Whether the followed provider is KeePassXC, which needs two things the others do not: an
    /// `ItemCreated` is held like an `ItemChanged` (it sends the last `ItemChanged` of a new item
    /// after it has answered `CreateItem`; see ``itemSignal(_:collection:item:)``), and the items
    /// are re-checked (``recheckItems()``).
    private var followsKeePassXC = false
    /// On KeePassXC, a digest of each followed item's secret as last seen (item path → digest).
    private var digests: [String: Int] = [:]
    /// The repeating source of ``recheckItems()``, 0 when none is attached.
    private var recheckSource: guint = 0
    /// The scope's items as last seen: item path → key.
    private var known: [String: KeychainKey] = [:]
    /// Item signals received and not handled yet, in order (see ``itemSignal(_:collection:item:)``).
    private var pending: [ItemSignal] = []

    private var logger: Logger { store.configuration.logger }

    init(store: SecretServiceStore, scope: KeychainScope, observation: KeychainObservation) {
        self.store = store
        self.scope = scope
        self.observation = observation
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Traps unless the calling thread owns the watcher's main context, the one thread allowed
    /// to touch the mutable state. One uncontended lock.
    private func preconditionOwnsContext(file: StaticString = #fileID, line: UInt = #line) {
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

    /// Starts the watcher's thread, named ``threadName`` before this returns, which runs the main
    /// loop until ``stop()``; it holds the watcher until it ends. Call once, after ``begin()``.
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` when no thread can be started;
    ///   everything is released again.
    func startThread() throws(KeychainError) {
        let started = thread.withLock { thread -> Int32 in
            let watcher = Unmanaged.passRetained(self).toOpaque()
            var handle = pthread_t()
            let result = pthread_create(&handle, nil, { watcher in
                Unmanaged<CollectionWatcher>.fromOpaque(watcher!).takeRetainedValue().run()
                return nil
            }, watcher)
            guard result == 0 else {
                Unmanaged<CollectionWatcher>.fromOpaque(watcher).release()
                return result
            }
            nameThread(handle, Self.threadName)
            thread = handle
            return 0
        }
        guard started == 0 else {
            precondition(g_main_context_acquire(context) != 0, "an unstarted watcher's main context is owned by another thread")
            defer { g_main_context_release(context) }
            finish()
            throw .underlying(
                domain: "SecretKeychain", code: Int(started), message: "no thread could be started to follow the changes")
        }
    }

    /// The name of the watchers' threads, as `/proc/PID/task/TID/comm` shows it (15 bytes at most).
    static let threadName = "keychain-watch"

    /// Names `thread` from the calling thread, so that the name is set when ``startThread()``
    /// returns. glibc's `pthread_setname_np`, which Swift's Glibc module leaves out (it is declared
    /// only with `_GNU_SOURCE`); found once, at run time. Where it is missing, the thread keeps its
    /// inherited name.
    private func nameThread(_ thread: pthread_t, _ name: String) {
        _ = Self.setThreadName?(thread, name)
    }

    private typealias SetThreadName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    private static let setThreadName: SetThreadName? = dlsym(nil, "pthread_setname_np").map {
        unsafeBitCast($0, to: SetThreadName.self)
    }

    /// Ends the thread's main loop and, unless called on the watcher's own thread (from a
    /// handler, or when the bus went away), waits until the thread has unsubscribed and ended.
    func stop() {
        postQuit()
        guard let thread = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// Makes the thread's main loop return, from any thread.
    private func postQuit() {
        let source = g_idle_source_new()!
        defer { g_source_unref(source) }
        g_source_set_callback(
            source, { loop in
                g_main_loop_quit(OpaquePointer(loop))
                return 0  // G_SOURCE_REMOVE
            }, UnsafeMutableRawPointer(g_main_loop_ref(loop)), { g_main_loop_unref(OpaquePointer($0)) })
        g_source_attach(source, context)
    }

    // MARK: On the thread that owns the main context

    /// The watcher's thread: owns the main context for its whole life and runs its loop.
    private func run() {
        precondition(g_main_context_acquire(context) != 0, "the watcher's main context is owned by another thread")
        defer { g_main_context_release(context) }
        defer { finish() }
        g_main_loop_run(loop)
    }

    /// Learns the followed provider's collection, whether it is locked, and how it announces a new item.
    @discardableResult
    private func resolveCollection() throws(KeychainError) -> String {
        preconditionOwnsContext()
        let path: String
        (path, collectionLocked, followsKeePassXC) = try store.perform("Watching \(scope)", writes: false) {
            attempt throws(SecretServiceFailure) in
            (attempt.collectionPath, try attempt.client.collectionIsLocked(attempt.collectionPath),
             store.provider(using: attempt.client) == .keePassXC)
        }
        collectionPath = path
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
                guard let parameters, let watcher, GLib.variant(parameters, hasType: "(sss)") else { return }
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

    /// Returns once the bus applies the match rules subscribed so far on the watcher's connection. GDBus sends
    /// a subscription's `AddMatch` without waiting for it, and the bus handles one connection's messages in order:
    /// a call answered after it was applied. Without it, an item written between a listing (on the store's
    /// connection) and the rule's arrival would be announced to no one, and its later deletion ignored as of an
    /// unknown item. When the bus does not answer, that is logged and signals are followed as they come.
    private func awaitMatchRules() {
        preconditionOwnsContext()
        guard let bus else { return }
        do throws(SecretServiceFailure) {
            _ = try SecretServiceClient.busDaemonCall(bus, "GetId", [], limit: store.configuration.timeout)
        } catch {
            logger.warning("The bus did not confirm the watcher's subscriptions; changes are reported as they come",
                           metadata: ["error": "\(error)"])
        }
    }

    /// Unsubscribes, lets GLib release what the subscriptions hold, and closes and drops the bus connection.
    private func finish() {
        preconditionOwnsContext()
        cancelPending()
        stopRecheck()
        guard let bus else { return }
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(bus), closedHandler) }
        for subscription in [ownerSubscription, itemSubscription, collectionSubscription] where subscription != 0 {
            g_dbus_connection_signal_unsubscribe(bus, subscription)
        }
        g_dbus_connection_close(bus, nil, nil, nil)
        while g_main_context_iteration(context, 0) != 0 {}
        g_object_unref(UnsafeMutableRawPointer(bus))
        self.bus = nil
    }

    /// A bus connection of the watcher's own, made in its main context so that its `closed`
    /// signal (the bus went away) is dispatched where that context runs, and that signal followed.
    private func privateBus(limit: Duration) throws(SecretServiceFailure) -> OpaquePointer {
        preconditionOwnsContext()
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let bus = try SecretServiceClient.privateSessionBus(limit: limit)
        typealias ClosedCallback = @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void
        let closed: ClosedCallback = { _, _, error, watcher in
            guard let watcher else { return }
            let detail = error.map { String(cString: $0.pointee.message) } ?? "the connection was closed"
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue().busClosed(detail)
        }
        closedHandler = g_signal_connect_data(
            UnsafeMutableRawPointer(bus), "closed", unsafeBitCast(closed, to: GCallback.self),
            Unmanaged.passRetained(self).toOpaque(), { watcher, _ in Unmanaged<CollectionWatcher>.fromOpaque(watcher!).release() },
            GConnectFlags(rawValue: 0))
        return bus
    }

    /// The session bus went away: no change can be followed again, so the observation ends.
    private func busClosed(_ detail: String) {
        preconditionOwnsContext()
        logger.warning("The session bus went away; the observation of the keychain has ended", metadata: ["detail": "\(detail)"])
        let reason = KeychainError.noSessionBus(detail: "the session bus went away while changes were followed: \(detail)")
        if let observation {
            observation.end(reason)
        } else {
            g_main_loop_quit(loop)
        }
    }

    /// Subscribes to a signal, dispatched to this watcher's main context. The subscription holds
    /// a reference to the watcher until GLib drops it.
    private func subscribe(
        sender: String?, interface: String, member: String?, path: String?, arg0: String?,
        _ callback: GDBusSignalCallback
    ) -> guint {
        preconditionOwnsContext()
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        return g_dbus_connection_signal_subscribe(
            bus, sender, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE, callback,
            Unmanaged.passRetained(self).toOpaque()
        ) { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() }
    }

    /// Follows the item signals of the provider `owner` (a unique bus name), or of none.
    private func follow(_ owner: String?) {
        preconditionOwnsContext()
        if let bus {
            for subscription in [itemSubscription, collectionSubscription] where subscription != 0 {
                g_dbus_connection_signal_unsubscribe(bus, subscription)
            }
            (itemSubscription, collectionSubscription) = (0, 0)
        }
        self.owner = owner
        guard let owner else { return }
        itemSubscription = subscribe(
            sender: owner, interface: "org.freedesktop.Secret.Collection", member: nil, path: nil, arg0: nil
        ) { _, _, collection, _, member, parameters, watcher in
            guard let collection, let member, let parameters, let watcher, GLib.variant(parameters, hasType: "(o)") else { return }
            let item = g_variant_get_child_value(parameters, 0)!
            defer { g_variant_unref(item) }
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue()
                .itemSignal(String(cString: member), collection: String(cString: collection), item: GLib.string(of: item))
        }
        collectionSubscription = subscribe(
            sender: owner, interface: "org.freedesktop.Secret.Service", member: "CollectionChanged",
            path: "/org/freedesktop/secrets", arg0: nil
        ) { _, _, _, _, _, parameters, watcher in
            guard let parameters, let watcher, GLib.variant(parameters, hasType: "(o)") else { return }
            let collection = g_variant_get_child_value(parameters, 0)!
            defer { g_variant_unref(collection) }
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue().collectionChanged(GLib.string(of: collection))
        }
        awaitMatchRules()
    }

    /// One item signal of the followed collection, queued: an item written (`ItemCreated`,
    /// `ItemChanged`) or deleted (`ItemDeleted`).
    private struct ItemSignal {
        let path: String
        let stored: Bool
        /// Until when an `ItemChanged` waits for the `ItemCreated` it may announce (`nil`: handle it now).
        var heldUntil: ContinuousClock.Instant?
    }

    /// How long an `ItemChanged` waits for an `ItemCreated` of the same item before it is handled
    /// on its own. KWallet sends its signals of one write within a millisecond.
    static let itemChangedHold = Duration.milliseconds(100)

    /// Queues an item signal of the collection, so that each write is reported once on every
    /// provider. gnome-keyring announces a new or replaced item with one `ItemCreated`; KWallet
    /// with one or two `ItemChanged` and then `ItemCreated` (and `ItemChanged` alone for a new
    /// secret); KeePassXC 2.7 with `ItemCreated` and a dozen `ItemChanged`, each three times, the
    /// last of them after its answer to `CreateItem`, and after a deletion `ItemChanged` for the
    /// path `/`. So consecutive signals of one item are one write (the item is read when the first
    /// of them is handled, after all of them), and an `ItemChanged` (on KeePassXC any write
    /// signal) is held until ``itemChangedHold`` has passed with no other signal of the item. (KWallet and KeePassXC also send every signal once per path the collection is
    /// exported at, such as `/org/freedesktop/secrets/aliases/default`: only the resolved path is
    /// followed.)
    private func itemSignal(_ member: String, collection: String, item path: String) {
        preconditionOwnsContext()
        logger.trace("Item signal", metadata: ["signal": "\(member)", "item": "\(path)"])
        guard let collectionPath, collection == collectionPath, path.hasPrefix(collectionPath + "/") else { return }
        let stored: Bool
        let heldUntil: ContinuousClock.Instant?
        switch member {
        case "ItemCreated": (stored, heldUntil) = (true, followsKeePassXC ? .now + Self.itemChangedHold : nil)
        case "ItemChanged": (stored, heldUntil) = (true, .now + Self.itemChangedHold)
        case "ItemDeleted": (stored, heldUntil) = (false, nil)
        default: return
        }
        if let last = pending.last, last.stored == stored, last.path == path {
            // One write (or one deletion) announced again: an ItemCreated among them ends the hold.
            if let lastHeld = last.heldUntil, let heldUntil {
                pending[pending.count - 1].heldUntil = max(lastHeld, heldUntil)
            } else {
                pending[pending.count - 1].heldUntil = nil
            }
        } else {
            pending.append(ItemSignal(path: path, stored: stored, heldUntil: heldUntil))
        }
        schedulePending(after: nil)
    }

    /// The attached sources that handle the queue, at once (idle) or when a hold ends; 0 for none.
    private var pendingSources: (idle: guint, timer: guint) = (0, 0)

    /// Handles the queued signals from a source of the watcher's main context: once the signals
    /// that have already arrived are all queued (an idle source, below the priority GDBus
    /// dispatches signals at), or `after` a hold.
    private func schedulePending(after delay: Duration?) {
        preconditionOwnsContext()
        if (delay == nil ? pendingSources.idle : pendingSources.timer) != 0 { return }
        let source: UnsafeMutablePointer<GSource>
        if let delay {
            source = g_timeout_source_new(delay.timerMilliseconds)!
        } else {
            source = g_idle_source_new()!
            g_source_set_priority(source, G_PRIORITY_DEFAULT_IDLE)
        }
        defer { g_source_unref(source) }
        let callback: GSourceFunc = delay == nil
            ? { Unmanaged<CollectionWatcher>.fromOpaque($0!).takeUnretainedValue().handlePending(timer: false); return 0 }
            : { Unmanaged<CollectionWatcher>.fromOpaque($0!).takeUnretainedValue().handlePending(timer: true); return 0 }
        g_source_set_callback(
            source, callback, Unmanaged.passRetained(self).toOpaque(), { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() })
        let id = g_source_attach(source, context)
        if delay == nil { pendingSources.idle = id } else { pendingSources.timer = id }
    }

    /// Detaches the sources that would handle the queue (each releases the watcher it holds).
    private func cancelPending() {
        preconditionOwnsContext()
        for id in [pendingSources.idle, pendingSources.timer] where id != 0 {
            if let source = g_main_context_find_source_by_id(context, id) { g_source_destroy(source) }
        }
        pendingSources = (0, 0)
        pending = []
    }

    /// Handles the queued signals in order, up to the first one still held. Removals are not
    /// believed from a locked collection, nor from a provider that cannot say whether it is
    /// locked (KeePassXC announces every item deleted as it quits, and its collection object is
    /// gone by then): the items are listed again instead, which reports what really went.
    private func handlePending(timer: Bool) {
        preconditionOwnsContext()
        if timer { pendingSources.timer = 0 } else { pendingSources.idle = 0 }
        var believeRemovals: Bool?
        while let signal = pending.first {
            if let heldUntil = signal.heldUntil, heldUntil > .now {
                schedulePending(after: heldUntil - .now)
                return
            }
            pending.removeFirst()
            if signal.stored {
                itemStored(at: signal.path)
                continue
            }
            if believeRemovals == nil { believeRemovals = removalsAreBelieved() }
            if believeRemovals == true { forget(signal.path) }
        }
    }

    /// Whether the removals announced now are believed: the collection is unlocked. Asked once per
    /// batch that has any, not taken from the last CollectionChanged (gnome-keyring announces an
    /// unlock with ItemChanged for every item only). When the provider cannot tell, the items are
    /// listed again instead.
    private func removalsAreBelieved() -> Bool {
        preconditionOwnsContext()
        guard let locked = isCollectionLocked() else {
            listAgain()
            return false
        }
        collectionLocked = locked
        return !locked
    }

    /// The provider says a collection changed (KWallet: only so when it is locked or unlocked).
    /// When the watched collection was locked and is unlocked now, its items are listed again and
    /// every key that may have changed meanwhile is reported.
    private func collectionChanged(_ path: String) {
        preconditionOwnsContext()
        guard path == collectionPath || path.hasPrefix("/org/freedesktop/secrets/aliases/") else { return }
        guard let locked = isCollectionLocked(), locked != collectionLocked else { return }
        collectionLocked = locked
        logger.info(locked ? "The watched collection was locked" : "The watched collection was unlocked; listing its items again",
                    metadata: ["collection": "\(collectionPath ?? "none")"])
        if !locked { listAgain() }
    }

    /// Whether the watched collection is locked now; `nil` when the provider could not tell.
    private func isCollectionLocked() -> Bool? {
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

    /// An item was written (gnome-keyring announces a replaced item as created again): reads
    /// which key it now holds.
    private func itemStored(at path: String) {
        preconditionOwnsContext()
        let key: KeychainKey?
        do throws(KeychainError) {
            key = try store.perform("Reading a changed item", writes: false) { attempt throws(SecretServiceFailure) in
                try attempt.key(ofItemAt: path)
            }
        } catch {
            logger.warning("Could not read a changed item; reporting its key as changed",
                           metadata: ["path": "\(path)", "error": "\(error)"])
            if let key = known[path] { report(KeychainChange(key: key, kind: .stored)) }
            return
        }
        guard let key, scope.contains(key) else {
            // Gone already (or no item of ours): forgotten, and reported removed if this process wrote it.
            forget(path)
            return
        }
        if let previous = known.updateValue(key, forKey: path), previous != key {
            report(change(of: previous))
        }
        // Seen before it is reported, so that a silent change after the reader's read is caught.
        if followsKeePassXC { digests[path] = digest(at: path) }
        report(KeychainChange(key: key, kind: .stored))
    }

    /// An item was deleted (or left the scope): reports its key removed, unless another item still holds it.
    /// An item not seen yet is reported too when this process wrote it: on KeePassXC, whose signals of a write
    /// are held (``itemChangedHold``), an item written here and deleted by another process at once is gone
    /// before it is read, and this process's app, which wrote it, must still hear that it went.
    private func forget(_ path: String) {
        preconditionOwnsContext()
        digests[path] = nil
        // Once only: a deletion is announced several times (KeePassXC sends each signal three times).
        let written = forgotten.contains(path) ? nil : store.key(writtenAt: path).flatMap { scope.contains($0) ? $0 : nil }
        guard let key = known.removeValue(forKey: path) ?? written else { return }
        if forgotten.count >= SecretServiceStore.writtenItemsKept { forgotten.removeAll() }
        forgotten.insert(path)
        report(change(of: key))
    }

    /// The paths whose removal was reported (at most ``SecretServiceStore/writtenItemsKept``), so that the
    /// store's memory of its own writes does not report one twice.
    private var forgotten: Set<String> = []

    private func change(of key: KeychainKey) -> KeychainChange {
        preconditionOwnsContext()
        return KeychainChange(key: key, kind: known.values.contains(key) ? .stored : .removed)
    }

    /// Another process owns `org.freedesktop.secrets` now (or none does): follows its signals,
    /// and reports every key that may have changed while no one was followed.
    private func ownerChanged(to newOwner: String) {
        preconditionOwnsContext()
        let newOwner = newOwner.isEmpty ? nil : newOwner
        guard newOwner != owner else { return }
        logger.info("The Secret Service provider changed; following the new one", metadata: ["owner": "\(newOwner ?? "none")"])
        follow(newOwner)
        guard newOwner != nil else { return }
        store.forgetResolvedCollection()
        do throws(KeychainError) {
            // kwalletd and KeePassXC take the name before their collection is unlocked: its items
            // are listed once it is (collectionChanged), not reported removed now.
            try resolveCollection()
        } catch {
            logger.warning("Could not resolve the watched collection of the new provider; changes are reported as they come",
                           metadata: ["error": "\(error)"])
            followsKeePassXC = false
            followKeePassXCsSilentChanges()
            return
        }
        if collectionLocked {
            logger.info("The new provider's collection is locked; its items are listed once it is unlocked")
            return
        }
        listAgain()
    }

    /// Lists the scope's items again and reports every key that may have changed since they were
    /// last seen: `stored` for each key there now, `removed` for each key gone.
    private func listAgain() {
        preconditionOwnsContext()
        do throws(KeychainError) {
            let before = Set(known.values)
            known = try listItems()
            followKeePassXCsSilentChanges()
            let now = Set(known.values)
            for key in before.union(now).sorted(by: KeychainKey.listingOrder) {
                report(KeychainChange(key: key, kind: now.contains(key) ? .stored : .removed))
            }
        } catch {
            logger.warning("Could not list the watched items again; changes are reported as they come",
                           metadata: ["error": "\(error)"])
        }
    }

    /// The unlocked items of the scope in the collection, by path. Never unlocks.
    private func listItems() throws(KeychainError) -> [String: KeychainKey] {
        let attributes = SecretServiceSchema.attributes(for: scope)
        return try store.perform("Listing the watched items", writes: false) { attempt throws(SecretServiceFailure) in
            var items: [String: KeychainKey] = [:]
            for path in attempt.inCollection(try attempt.client.search(attributes).unlocked) {
                if let key = try attempt.key(ofItemAt: path), scope.contains(key) { items[path] = key }
            }
            return items
        }
    }

    // MARK: KeePassXC's silent changes

    /// How often the items followed on KeePassXC are re-checked. KeePassXC 2.7 saves its database
    /// on a worker thread while its event loop goes on serving D-Bus, with its change signals
    /// blocked for the whole save (`Database::writeDatabase`); a save follows every change and
    /// lasts as long as the database's key derivation (about a second by default). A secret
    /// replaced, an item created or an item deleted during a save is therefore announced by no
    /// signal at all. The re-check lists the scope's items and reads each followed item's secret,
    /// so such a change reaches the other apps within two intervals instead of never.
    static let keePassXCRecheckInterval = Duration.seconds(2)

    /// On KeePassXC, records a digest of every followed item and re-checks them every
    /// ``keePassXCRecheckInterval``; on any other provider, stops doing so.
    private func followKeePassXCsSilentChanges() {
        preconditionOwnsContext()
        guard followsKeePassXC else {
            stopRecheck()
            digests = [:]
            return
        }
        digests = known.keys.reduce(into: [:]) { digests, path in digests[path] = digest(at: path) }
        guard recheckSource == 0 else { return }
        let source = g_timeout_source_new(Self.keePassXCRecheckInterval.timerMilliseconds)!
        defer { g_source_unref(source) }
        g_source_set_callback(
            source, { watcher in
                Unmanaged<CollectionWatcher>.fromOpaque(watcher!).takeUnretainedValue().recheckItems()
                return 1  // G_SOURCE_CONTINUE
            }, Unmanaged.passRetained(self).toOpaque(), { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() })
        recheckSource = g_source_attach(source, context)
    }

    /// Detaches the re-check's source (which releases the watcher it holds).
    private func stopRecheck() {
        preconditionOwnsContext()
        guard recheckSource != 0 else { return }
        if let source = g_main_context_find_source_by_id(context, recheckSource) { g_source_destroy(source) }
        recheckSource = 0
    }

    /// Lists the scope's items and reads every followed item's secret: reports an item that came
    /// or went without a signal once two re-checks in a row have seen it so (a signal may still be
    /// on its way at the first), and the key of each whose secret changed since it was last seen.
    /// Skipped while signals wait to be handled or the collection is locked.
    private func recheckItems() {
        preconditionOwnsContext()
        guard pending.isEmpty, !collectionLocked else { return }
        recheckListing()
        for (path, key) in known.sorted(by: { KeychainKey.listingOrder($0.value, $1.value) }) {
            guard let now = digest(at: path) else { continue }
            let before = digests.updateValue(now, forKey: path)
            if let before, before != now {
                logger.debug("A changed secret that the provider did not announce", metadata: ["key": "\(key)"])
                report(KeychainChange(key: key, kind: .stored))
            }
        }
    }

    /// The items of the scope that a listing showed and the signals had not (`appeared`), and the
    /// followed items it did not show (`went`), at the last re-check.
    private var unannounced: (appeared: Set<String>, went: Set<String>) = ([], [])

    /// The listing half of ``recheckItems()``.
    private func recheckListing() {
        preconditionOwnsContext()
        let listed: Set<String>
        do throws(KeychainError) {
            let attributes = SecretServiceSchema.attributes(for: scope)
            listed = try store.perform("Re-checking the watched items", writes: false) { attempt throws(SecretServiceFailure) in
                let found = try attempt.client.search(attributes)
                // An item listed as locked is the collection locking: the CollectionChanged signal tells.
                guard attempt.inCollection(found.locked).isEmpty else { return nil }
                return Set(attempt.inCollection(found.unlocked))
            } ?? Set(known.keys)
        } catch {
            logger.debug("Could not list the watched items to re-check them", metadata: ["error": "\(error)"])
            return
        }
        let appeared = listed.subtracting(known.keys)
        let went = Set(known.keys).subtracting(listed)
        defer { unannounced = (appeared, went) }
        for path in appeared.intersection(unannounced.appeared).sorted() {
            logger.debug("An item that the provider did not announce", metadata: ["path": "\(path)"])
            itemStored(at: path)
        }
        let gone = went.intersection(unannounced.went)
        // KeePassXC lists no item of a locked database: believed only while it is unlocked.
        guard !gone.isEmpty, removalsAreBelieved() else { return }
        for path in gone.sorted() {
            logger.debug("A deletion that the provider did not announce", metadata: ["path": "\(path)"])
            forget(path)
        }
    }

    /// A digest of the item's secret, `nil` when it cannot be read (gone, locked, or the provider
    /// failed: the next re-check tries again).
    private func digest(at path: String) -> Int? {
        do throws(KeychainError) {
            return try store.perform("Re-checking a watched item", writes: false) { attempt throws(SecretServiceFailure) in
                try attempt.client.secretDigest(at: path)
            }
        } catch {
            logger.debug("Could not re-check a watched item", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    private func report(_ change: KeychainChange) {
        logger.trace("Reporting a change", metadata: ["change": "\(change)"])
        observation?.deliver(change)
    }
}
