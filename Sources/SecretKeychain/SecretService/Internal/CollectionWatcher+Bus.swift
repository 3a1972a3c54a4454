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

extension CollectionWatcher {
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
    func finish() {
        preconditionOwnsContext()
        cancelPending()
        stopRecheck()
        guard let bus else { return }
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(bus), closedHandler) }
        for subscription in [ownerSubscription, itemSubscription, collectionSubscription] where subscription != 0 {
            g_dbus_connection_signal_unsubscribe(bus, subscription)
        }
        // Closed and waited for (each bounded), so that nothing of the connection's outlives the watcher: the close's
        // answer, posted where no loop runs, kept the connection, which keeps the main context and its descriptor.
        do throws(SecretServiceFailure) {
            _ = try SecretServiceClient.bounded(.closeBus, limit: store.configuration.timeout) { cancellable, error in
                g_dbus_connection_close_sync(bus, cancellable, error)
            }
        } catch {
            logger.debug("The watcher's bus connection did not close cleanly", metadata: ["error": "\(error)"])
        }
        // The connection's `closed` signal and the subscriptions' ends are posted to the watcher's context: each
        // holds the connection or the watcher until it is dispatched.
        while g_main_context_iteration(context, 0) != 0 {}
        g_object_unref(UnsafeMutableRawPointer(bus))
        self.bus = nil
    }

    /// A bus connection of the watcher's own, made in its main context so that its `closed`
    /// signal (the bus went away) is dispatched where that context runs, and that signal followed.
    func privateBus(limit: Duration) throws(SecretServiceFailure) -> OpaquePointer {
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
    func subscribe(
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

    /// Follows the item signals of the provider `owner` (a unique bus name), or of none: those of the watched
    /// collection's path only, once it is resolved. KWallet and KeePassXC send each signal once more for every alias
    /// the collection is exported at (`/org/freedesktop/secrets/aliases/default`), and KeePassXC a dozen for one
    /// write: the bus leaves out the alias's copies, so that they never wait in this watcher's queue.
    func follow(_ owner: String?) {
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
            sender: owner, interface: "org.freedesktop.Secret.Collection", member: nil, path: collectionPath, arg0: nil
        ) { _, _, collection, _, member, parameters, watcher in
            guard let collection, let member, let parameters, let watcher, GVariantValues.hasType(parameters, "(o)") else { return }
            let item = g_variant_get_child_value(parameters, 0)!
            defer { g_variant_unref(item) }
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue()
                .itemSignal(String(cString: member), collection: String(cString: collection), item: GLib.string(of: item))
        }
        collectionSubscription = subscribe(
            sender: owner, interface: "org.freedesktop.Secret.Service", member: "CollectionChanged",
            path: "/org/freedesktop/secrets", arg0: nil
        ) { _, _, _, _, _, parameters, watcher in
            guard let parameters, let watcher, GVariantValues.hasType(parameters, "(o)") else { return }
            let collection = g_variant_get_child_value(parameters, 0)!
            defer { g_variant_unref(collection) }
            Unmanaged<CollectionWatcher>.fromOpaque(watcher).takeUnretainedValue().collectionChanged(GLib.string(of: collection))
        }
        awaitMatchRules()
    }

    /// The provider says a collection changed (KWallet: only so when it is locked or unlocked).
    /// When the watched collection was locked and is unlocked now, its items are listed again and
    /// every key that may have changed meanwhile is reported.
    private func collectionChanged(_ path: String) {
        preconditionOwnsContext()
        guard path == collectionPath || path.hasPrefix("/org/freedesktop/secrets/aliases/") else { return }
        removalsBelieved = nil
        guard let locked = isCollectionLocked(), locked != collectionLocked else { return }
        collectionLocked = locked
        logger.info(locked ? "The watched collection was locked" : "The watched collection was unlocked; listing its items again",
                    metadata: ["collection": "\(collectionPath ?? "none")"])
        if !locked { listAgain() }
    }

    /// Another process owns `org.freedesktop.secrets` now (or none does): follows its signals,
    /// and reports every key that may have changed while no one was followed.
    func ownerChanged(to newOwner: String) {
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
}
