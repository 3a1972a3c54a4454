import CSecret
import Foundation
import Logging
import Synchronization

/// Follows the item signals of a ``SecretServiceStore``'s collection (`ItemCreated`,
/// `ItemChanged`, `ItemDeleted`) on a thread of its own, and reports the changes of the items in
/// one scope to a ``KeychainObservation``.
///
/// The signals are subscribed from the provider's unique bus name; when another process takes
/// over `org.freedesktop.secrets` (the provider restarted), the watcher subscribes again from the
/// new owner, lists the scope's items again and reports every key that may have changed meanwhile.
/// Nothing polls: between signals the thread sleeps in its GLib main loop.
///
/// The signals arrive on a bus connection of the watcher's own, made in its main context: when the
/// session bus goes away (the connection is closed), the watcher ends the observation with
/// ``KeychainError/noSessionBus(detail:)`` instead of waiting forever.
///
/// `@unchecked Sendable`: the mutable state is touched only on the watcher's thread (in `run` and
/// the signal callbacks its main loop dispatches). Other threads only call ``start(_:)`` once and
/// ``stop()``, which posts to the thread's main context (thread-safe in GLib).
final class CollectionWatcher: @unchecked Sendable {
    private let store: SecretServiceStore
    private let scope: KeychainScope
    /// Weak: the observation owns this watcher (to stop it); releasing it stops the watcher.
    private weak var observation: KeychainObservation?
    private let context: OpaquePointer
    private let loop: OpaquePointer
    /// The watcher's GLib thread, until ``stop()`` joins or releases it.
    private let thread = Mutex<UnsafeMutablePointer<GThread>?>(nil)

    private var bus: OpaquePointer?
    /// The handler of the connection's `closed` signal, 0 when none is connected.
    private var closedHandler: gulong = 0
    private var ownerSubscription: guint = 0
    private var itemSubscription: guint = 0
    /// The unique bus name of the provider whose signals are followed, `nil` while there is none.
    private var owner: String?
    private var collectionPath: String?
    /// The scope's items as last seen: item path → key.
    private var known: [String: KeychainKey] = [:]

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

    /// Starts the thread; `started` is called from it once the signals are followed, or with why they cannot be.
    func start(_ started: @escaping @Sendable (Result<Void, KeychainError>) -> Void) {
        // A GLib thread, which names itself (``threadName``); it holds the watcher until it ends.
        // Stored under the lock it is created in, so that a `stop()` from the thread finds it.
        thread.withLock { thread in
            let context = Unmanaged.passRetained(StartContext(watcher: self, started: started)).toOpaque()
            thread = g_thread_new(Self.threadName, { context in
                let start = Unmanaged<StartContext>.fromOpaque(context!).takeRetainedValue()
                start.watcher.run(start.started)
                return nil
            }, context)
        }
    }

    private final class StartContext {
        let watcher: CollectionWatcher
        let started: @Sendable (Result<Void, KeychainError>) -> Void

        init(watcher: CollectionWatcher, started: @escaping @Sendable (Result<Void, KeychainError>) -> Void) {
            self.watcher = watcher
            self.started = started
        }
    }

    /// The name of the watchers' threads, as `/proc/PID/task/TID/comm` shows it (15 bytes at most).
    static let threadName = "keychain-watch"

    /// Ends the thread's main loop and, unless called on the watcher's own thread (from a
    /// handler, or when starting failed), waits until the thread has unsubscribed and ended.
    func stop() {
        postQuit()
        guard let thread = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        if thread == g_thread_self() {
            g_thread_unref(thread)
        } else {
            g_thread_join(thread)
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

    // MARK: On the watcher's thread

    private func run(_ started: @Sendable (Result<Void, KeychainError>) -> Void) {
        defer { finish() }
        do throws(KeychainError) {
            try begin()
        } catch {
            started(.failure(error))
            return
        }
        started(.success(()))
        g_main_loop_run(loop)
    }

    /// Resolves the collection, subscribes to the provider's ownership and its item signals, then
    /// lists the scope's items, in that order so that no change falls between the list and the signals.
    private func begin() throws(KeychainError) {
        let limit = store.configuration.timeout
        let (path, locked) = try store.perform("Watching \(scope)", writes: false) { attempt throws(SecretServiceFailure) in
            (attempt.collectionPath, try attempt.client.collectionIsLocked(attempt.collectionPath))
        }
        collectionPath = path
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
                guard let parameters, let watcher, variant(parameters, hasType: "(sss)") else { return }
                let newOwner = g_variant_get_child_value(parameters, 2)!
                defer { g_variant_unref(newOwner) }
                Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue().ownerChanged(to: string(of: newOwner))
            }
            owner = try SecretServiceClient.busDaemonCall(
                bus, "GetNameOwner", [g_variant_new_string(SecretServiceClient.busName)], limit: limit)
        } catch {
            throw store.keychainError(for: error, operation: "Watching \(scope)", writes: false)
        }
        follow(owner)
        known = try listItems()
    }

    /// Unsubscribes, lets GLib release what the subscriptions hold, and closes and drops the bus connection.
    private func finish() {
        guard let bus else { return }
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(bus), closedHandler) }
        for subscription in [ownerSubscription, itemSubscription] where subscription != 0 {
            g_dbus_connection_signal_unsubscribe(bus, subscription)
        }
        g_dbus_connection_close(bus, nil, nil, nil)
        while g_main_context_iteration(context, 0) != 0 {}
        g_object_unref(UnsafeMutableRawPointer(bus))
        self.bus = nil
    }

    /// A bus connection of the watcher's own, made in its main context so that its `closed`
    /// signal (the bus went away) is dispatched on this thread, and that signal followed.
    private func privateBus(limit: Duration) throws(SecretServiceFailure) -> OpaquePointer {
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
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        return g_dbus_connection_signal_subscribe(
            bus, sender, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE, callback,
            Unmanaged.passRetained(self).toOpaque()
        ) { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() }
    }

    /// Follows the item signals of the provider `owner` (a unique bus name), or of none.
    private func follow(_ owner: String?) {
        if let bus, itemSubscription != 0 {
            g_dbus_connection_signal_unsubscribe(bus, itemSubscription)
            itemSubscription = 0
        }
        self.owner = owner
        guard let owner else { return }
        itemSubscription = subscribe(
            sender: owner, interface: "org.freedesktop.Secret.Collection", member: nil, path: nil, arg0: nil
        ) { _, _, collection, _, member, parameters, watcher in
            guard let collection, let member, let parameters, let watcher, variant(parameters, hasType: "(o)") else { return }
            let item = g_variant_get_child_value(parameters, 0)!
            defer { g_variant_unref(item) }
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue()
                .itemSignal(String(cString: member), collection: String(cString: collection), item: string(of: item))
        }
    }

    private func itemSignal(_ member: String, collection: String, item path: String) {
        logger.trace("Item signal", metadata: ["signal": "\(member)", "item": "\(path)"])
        guard collection == collectionPath else { return }
        switch member {
        case "ItemCreated", "ItemChanged": itemStored(at: path)
        case "ItemDeleted": forget(path)
        default: break
        }
    }

    /// An item was written (gnome-keyring announces a replaced item as created again): reads
    /// which key it now holds.
    private func itemStored(at path: String) {
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
            forget(path)
            return
        }
        if let previous = known.updateValue(key, forKey: path), previous != key {
            report(change(of: previous))
        }
        report(KeychainChange(key: key, kind: .stored))
    }

    /// An item was deleted (or left the scope): reports its key removed, unless another item still holds it.
    private func forget(_ path: String) {
        guard let key = known.removeValue(forKey: path) else { return }
        report(change(of: key))
    }

    private func change(of key: KeychainKey) -> KeychainChange {
        KeychainChange(key: key, kind: known.values.contains(key) ? .stored : .removed)
    }

    /// Another process owns `org.freedesktop.secrets` now (or none does): follows its signals,
    /// and reports every key that may have changed while no one was followed.
    private func ownerChanged(to newOwner: String) {
        let newOwner = newOwner.isEmpty ? nil : newOwner
        guard newOwner != owner else { return }
        logger.info("The Secret Service provider changed; following the new one", metadata: ["owner": "\(newOwner ?? "none")"])
        follow(newOwner)
        guard newOwner != nil else { return }
        store.forgetResolvedCollection()
        do throws(KeychainError) {
            collectionPath = try store.perform("Watching \(scope)", writes: false) { attempt throws(SecretServiceFailure) in attempt.collectionPath }
            let before = Set(known.values)
            known = try listItems()
            let now = Set(known.values)
            for key in before.union(now).sorted(by: KeychainKey.listingOrder) {
                report(KeychainChange(key: key, kind: now.contains(key) ? .stored : .removed))
            }
        } catch {
            logger.warning("Could not list the watched items of the new provider; changes are reported as they come",
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

    private func report(_ change: KeychainChange) {
        logger.trace("Reporting a change", metadata: ["change": "\(change)"])
        observation?.deliver(change)
    }
}
