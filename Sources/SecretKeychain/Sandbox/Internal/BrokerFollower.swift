import CSecret
import FoundationEssentials
import Synchronization
import SystemSupport

/// One observation of a ``BrokerKeychainStore``: the broker's `ItemChanged` signals for one scope, sent to this
/// process's connection once it called `Follow`, dispatched on a main context of its own that a thread of its own
/// (``threadName``) runs. When the broker leaves the bus (it restarted, say), it follows again, which activates a
/// new broker, and reports every item of the scope as stored; when that fails, the observation ends.
final class BrokerFollower: Sendable {
    /// The name of the followers' threads, as `/proc/PID/task/TID/comm` shows it.
    static let threadName = "broker-follow"

    private let store: BrokerKeychainStore
    private let group: AccessGroup?
    private let context: ContextReference
    private let state = Mutex<State>(State())

    private struct State {
        /// The session connection `Follow` was called on, held so that it stays open (and the broker's follow with it).
        var bus: ConnectionReference?
        var subscriptions: [guint] = []
        var thread: OwnThread.Handle?
        weak var observation: KeychainObservation?
    }

    /// GLib's main context and loop of this follower, used from any thread through thread-safe calls.
    private struct ContextReference: @unchecked Sendable {
        let context: OpaquePointer
        let loop: OpaquePointer
    }

    /// A `GDBusConnection`, used from any thread (GDBus locks it).
    private struct ConnectionReference: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private init(store: BrokerKeychainStore, group: AccessGroup?) throws(KeychainError) {
        self.store = store
        self.group = group
        let context = try MainContexts.forKeychain()
        self.context = ContextReference(context: context, loop: g_main_loop_new(context, 0))
    }

    deinit {
        g_main_loop_unref(context.loop)
        g_main_context_unref(context.context)
    }

    private var groupArgument: String { group?.rawValue ?? "" }

    /// Subscribes, asks the broker to follow the scope, and starts the thread. Returns once a change made
    /// afterwards will be reported.
    static func start(
        store: BrokerKeychainStore, group: AccessGroup?, handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let follower = try BrokerFollower(store: store, group: group)
        let observation = KeychainObservation { change in
            guard change.key.accessGroup == group else { return }
            handler(change)
        }
        try follower.subscribe(observation)
        do throws(KeychainError) {
            try follower.follow()
            let thread: OwnThread.Handle
            do throws(OwnThreadFailure) {
                thread = try OwnThread.start(name: threadName) { follower.run() }
            } catch {
                throw .underlying(domain: "SecretKeychain", code: Int(error.code), message: "no thread could be started to follow the broker")
            }
            follower.state.withLock { $0.thread = thread }
        } catch {
            follower.unsubscribe()
            throw error
        }
        observation.whenCancelled { follower.stop() }
        return observation
    }

    /// Subscribes to `ItemChanged` and to the broker's name changing owner, on this follower's context, on the shared
    /// session connection (the one `Follow` is called on, to which the broker sends the signals).
    private func subscribe(_ observation: KeychainObservation) throws(KeychainError) {
        let bus: OpaquePointer
        do throws(SessionBusCall.Failure) {
            bus = try SessionBusCall.connection(limit: store.configuration.timeout)
        } catch {
            throw BrokerKeychainStore.keychainError(for: error, operation: "Following the broker", limit: store.configuration.timeout, writes: false)
        }
        state.withLock { state in
            state.observation = observation
            state.bus = ConnectionReference(pointer: bus)
        }
        g_main_context_push_thread_default(context.context)
        defer { g_main_context_pop_thread_default(context.context) }
        let box = { Unmanaged.passRetained(self).toOpaque() }
        let release: GDestroyNotify = { Unmanaged<BrokerFollower>.fromOpaque($0!).release() }
        let itemChanged = g_dbus_connection_signal_subscribe(
            bus, BrokerKeychainStore.busName, BrokerKeychainStore.interface, "ItemChanged", BrokerKeychainStore.objectPath, nil,
            G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, parameters, follower in
                guard let parameters, let follower else { return }
                Unmanaged<BrokerFollower>.fromOpaque(follower).takeUnretainedValue().itemChanged(parameters)
            }, box(), release)
        let ownerChanged = g_dbus_connection_signal_subscribe(
            bus, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", BrokerKeychainStore.busName,
            G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, parameters, follower in
                guard let parameters, let follower, GVariantValues.hasType(parameters, "(sss)") else { return }
                guard GVariantValues.string(at: 2, of: parameters).isEmpty else { return }
                Unmanaged<BrokerFollower>.fromOpaque(follower).takeUnretainedValue().brokerLeft()
            }, box(), release)
        state.withLock { $0.subscriptions = [itemChanged, ownerChanged] }
    }

    private func follow() throws(KeychainError) {
        g_variant_unref(try store.call(
            "Follow", [g_variant_new_string(groupArgument)], replyType: "()", operation: "Following \(group.map { "\($0)" } ?? "the private scope")",
            writes: false))
    }

    private func itemChanged(_ parameters: OpaquePointer) {
        guard GVariantValues.hasType(parameters, "(ssss)") else { return }
        let strings = (0..<4).map { GVariantValues.string(at: $0, of: parameters) }
        guard strings[0] == groupArgument, let kind = KeychainChange.Kind(rawValue: strings[3]) else { return }
        let key = KeychainKey(service: strings[1], account: strings[2], accessGroup: group)
        guard (try? key.validate()) != nil else { return }
        state.withLock { $0.observation }?.deliver(KeychainChange(key: key, kind: kind))
    }

    /// The broker left the bus: what it followed for this process is gone. Follow again (off this thread, which
    /// must keep dispatching) and report the scope's items, which may have changed meanwhile.
    private func brokerLeft() {
        store.blockingQueue.async { [self] in
            guard let observation = state.withLock({ $0.observation }), !observation.isCancelled else { return }
            do throws(KeychainError) {
                try follow()
                let scope: KeychainScope = group.map { .group($0) } ?? .ungrouped
                for item in try store.items(in: scope) { observation.deliver(KeychainChange(key: item.key, kind: .stored)) }
            } catch {
                store.configuration.logger.warning("The broker left and its changes can no longer be followed", metadata: ["error": "\(error)"])
                observation.end(error)
            }
        }
    }

    /// The thread: owns the context for its whole life and runs its loop until ``stop()``.
    private func run() {
        precondition(g_main_context_acquire(context.context) != 0, "the follower's main context is owned by another thread")
        defer { g_main_context_release(context.context) }
        g_main_loop_run(context.loop)
        // Let GLib release what the subscriptions hold.
        while g_main_context_iteration(context.context, 0) != 0 {}
    }

    /// Unsubscribes, tells the broker (off the caller's thread), and ends the thread.
    private func stop() {
        unsubscribe()
        let group = groupArgument
        store.blockingQueue.async { [store] in
            if let reply = try? store.call("Unfollow", [g_variant_new_string(group)], replyType: "()", operation: "Unfollowing", writes: false) {
                g_variant_unref(reply)
            }
        }
        MainLoopQuit.post(context.loop, on: context.context)
        guard let thread = state.withLock({ state in defer { state.thread = nil }; return state.thread }) else { return }
        if thread.isCurrent { thread.detach() } else { thread.join() }
    }

    private func unsubscribe() {
        let (bus, subscriptions) = state.withLock { state in
            defer { state.subscriptions = []; state.bus = nil }
            return (state.bus, state.subscriptions)
        }
        guard let bus = bus?.pointer else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        for subscription in subscriptions { g_dbus_connection_signal_unsubscribe(bus, subscription) }
    }
}
