import CSecret
import Foundation
import Synchronization
import SystemSupport

/// The broker's side of the session bus, through GDBus: the connection, the exported object, the
/// well-known name, the calls it receives, the signals it sends and the bus's own answers about peers.
///
/// Threads: GLib's default main context runs on the main thread (``run()``), where GDBus delivers
/// method calls and `NameOwnerChanged`; ``Handlers`` must return at once and do their work elsewhere.
/// Answering a call, sending a signal and the bus queries are safe from any thread (GDBus's own
/// worker thread does the I/O); the queries block the calling thread, bounded by ``callTimeout``.
final class BusServer: Sendable {
    /// What the server hands its owner. Called on the main thread; each must return promptly.
    struct Handlers: Sendable {
        /// A call of one of the interface's methods, already checked against its signature by GDBus.
        var methodCall: @Sendable (MethodCall) -> Void
        /// A unique name left the bus (a client disconnected).
        var peerLeft: @Sendable (String) -> Void
    }

    /// How long a query to the bus itself may take.
    static let callTimeout: Duration = .seconds(5)

    private let connection: Connection
    private let loop: MainLoop

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`) and exports the broker's object, without a name yet.
    ///
    /// - Throws: ``BrokerStartFailure`` when there is no session bus or the object cannot be exported.
    init(handlers: Handlers) throws(BrokerStartFailure) {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            defer { g_error_free(error) }
            throw BrokerStartFailure(
                "No session bus: \(Self.message(of: error)). Run the broker inside a desktop session, or under dbus-run-session.")
        }
        self.connection = Connection(pointer: connection)
        loop = MainLoop(pointer: g_main_loop_new(nil, 0))
        let box = Unmanaged.passRetained(HandlerBox(handlers)).toOpaque()
        try export(userData: box)
        subscribeToPeersLeaving(userData: box)
        stopWhenClosed()
    }

    /// Ends ``run()`` when the connection closes (the session bus went away), whatever else uses the connection: it is
    /// GLib's shared one, whose exit-on-close the keychain layer turns off (a library must not end its process), so the
    /// broker follows the connection's `closed` signal itself, dispatched on the main thread.
    private func stopWhenClosed() {
        typealias ClosedCallback = @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void
        let closed: ClosedCallback = { _, _, error, loop in
            let detail = error.map { String(cString: $0.pointee.message) } ?? "the connection was closed"
            FileHandle.standardError.write(Data("keyring-auth-broker: the session bus went away (\(detail)); exiting\n".utf8))
            g_main_loop_quit(OpaquePointer(loop))
        }
        // The loop lives as long as the process: no reference is taken or given back.
        g_signal_connect_data(
            UnsafeMutableRawPointer(connection.pointer), "closed", unsafeBitCast(closed, to: GCallback.self),
            UnsafeMutableRawPointer(loop.pointer), nil, GConnectFlags(rawValue: 0))
    }

    /// Whether the connection to the session bus has closed.
    var isClosed: Bool { g_dbus_connection_is_closed(connection.pointer) != 0 }

    private func export(userData: UnsafeMutableRawPointer) throws(BrokerStartFailure) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(BrokerInterface.introspectionXML, &error) else {
            defer { g_error_free(error) }
            throw BrokerStartFailure("The broker's interface description does not parse: \(Self.message(of: error))")
        }
        defer { g_dbus_node_info_unref(node) }
        // GDBus keeps its own copy of the table; this one lives as long as the process in any case.
        let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, sender, _, interface, method, parameters, invocation, userData in
            let handlers = Unmanaged<HandlerBox>.fromOpaque(userData!).takeUnretainedValue().handlers
            let call = MethodCall(
                invocation: invocation!, sender: sender.map { String(cString: $0) } ?? "",
                interface: interface.map { String(cString: $0) } ?? "", method: String(cString: method!), parameters: parameters!)
            handlers.methodCall(call)
        }
        for name in [BrokerInterface.name, BrokerInterface.keychainName] {
            let interface = g_dbus_node_info_lookup_interface(node, name)
            let id = g_dbus_connection_register_object(
                connection.pointer, BrokerInterface.objectPath, interface, vtable, userData, nil, &error)
            guard id != 0 else {
                defer { g_error_free(error) }
                throw BrokerStartFailure("The broker's object cannot be exported: \(Self.message(of: error))")
            }
        }
    }

    private func subscribeToPeersLeaving(userData: UnsafeMutableRawPointer) {
        g_dbus_connection_signal_subscribe(
            connection.pointer, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters, GVariantValues.hasType(parameters, "(sss)") else { return }
                let name = GVariantValues.string(at: 0, of: parameters)
                let newOwner = GVariantValues.string(at: 2, of: parameters)
                guard name.hasPrefix(":"), newOwner.isEmpty else { return }
                Unmanaged<HandlerBox>.fromOpaque(userData!).takeUnretainedValue().handlers.peerLeft(name)
            }, userData, nil)
    }

    /// Asks for the well-known name, never to be replaced by another owner (no `DBUS_NAME_FLAG_ALLOW_REPLACEMENT`)
    /// and without queueing behind one (`DBUS_NAME_FLAG_DO_NOT_QUEUE`): the broker owns the name or does not start.
    ///
    /// - Throws: ``BrokerStartFailure`` when another process owns it (naming that process) or the bus refuses.
    func requestName(_ name: String) throws(BrokerStartFailure) {
        let doNotQueue: UInt32 = 4
        let reply = try callBus(
            "RequestName", GVariantValues.tuple([g_variant_new_string(name), g_variant_new_uint32(doNotQueue)]), replyType: "(u)")
        defer { g_variant_unref(reply) }
        // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER, DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER.
        let result = GVariantValues.uint32(at: 0, of: reply)
        guard result == 1 || result == 4 else {
            throw BrokerStartFailure(
                "\(name) is owned by another process (\(describeOwner(of: name))): a broker already running on this bus, or another "
                    + "program holding its name, which then receives the calls meant for the broker. Run keyring-auth doctor to see which.")
        }
    }

    /// The owner of `name` as "pid 1234, /usr/bin/program", as far as the bus and `/proc` tell.
    private func describeOwner(of name: String) -> String {
        guard let reply = try? callBus("GetConnectionUnixProcessID", GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(u)")
        else { return "which one, the bus did not say" }
        defer { g_variant_unref(reply) }
        let pid = GVariantValues.uint32(at: 0, of: reply)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? "executable unknown"
        return "pid \(pid), \(executable)"
    }

    /// The connections queued for `name` behind its owner (`ListQueuedOwners`), other than the broker's own: each would
    /// receive the name, and the calls sent to it, were the broker to release it.
    ///
    /// - Throws: ``BrokerStartFailure`` when the bus does not answer.
    func othersQueued(for name: String) throws(BrokerStartFailure) -> [String] {
        let reply = try callBus("ListQueuedOwners", GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(as)")
        defer { g_variant_unref(reply) }
        let own = g_dbus_connection_get_unique_name(connection.pointer).map { String(cString: $0) }
        let names = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(names) }
        return (0..<g_variant_n_children(names)).compactMap { index -> String? in
            let child = g_variant_get_child_value(names, index)!
            defer { g_variant_unref(child) }
            let queued = String(cString: g_variant_get_string(child, nil))
            return queued == own ? nil : queued
        }
    }

    /// Gives the well-known name back, so that the next call activates a new broker.
    func releaseName(_ name: String) {
        if let reply = try? callBus("ReleaseName", GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(u)") {
            g_variant_unref(reply)
        }
    }

    /// The process the bus has for `uniqueName`'s connection: its ID, and a pidfd where the bus gives one
    /// (`ProcessFD`, dbus-broker 34 and later; Debian 12's dbus-daemon gives none), owned by the caller.
    func process(of uniqueName: String) throws(BrokerStartFailure) -> (pid: pid_t, pidfd: Int32?) {
        try Self.checkDescriptorFree()
        let type = g_variant_type_new("(a{sv})")
        defer { g_variant_type_free(type) }
        var error: UnsafeMutablePointer<GError>?
        var fdList: UnsafeMutablePointer<GUnixFDList>?
        guard let reply = g_dbus_connection_call_with_unix_fd_list_sync(
            connection.pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
            GVariantValues.tuple([g_variant_new_string(uniqueName)]), type, G_DBUS_CALL_FLAGS_NONE,
            gint(Self.callTimeout.components.seconds * 1000), nil, &fdList, nil, &error)
        else {
            defer { g_error_free(error) }
            throw BrokerStartFailure("the bus did not answer GetConnectionCredentials: \(Self.message(of: error))")
        }
        defer { g_variant_unref(reply) }
        defer { if let fdList { g_object_unref(UnsafeMutableRawPointer(fdList)) } }
        let credentials = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(credentials) }
        guard let pid = g_variant_lookup_value(credentials, "ProcessID", nil) else {
            throw BrokerStartFailure("the bus gave no process ID for \(uniqueName)")
        }
        defer { g_variant_unref(pid) }
        guard GVariantValues.hasType(pid, "u") else { throw BrokerStartFailure("the bus gave a malformed process ID for \(uniqueName)") }
        var pidfd: Int32?
        if let fdList, let index = g_variant_lookup_value(credentials, "ProcessFD", nil) {
            defer { g_variant_unref(index) }
            if GVariantValues.hasType(index, "h") {
                let fd = g_unix_fd_list_get(fdList, g_variant_get_handle(index), nil)  // a duplicate, ours to close
                if fd >= 0 { pidfd = fd }
            }
        }
        return (pid_t(bitPattern: g_variant_get_uint32(pid)), pidfd)
    }

    /// Whether `name` has an owner on the bus now.
    func hasOwner(_ name: String) -> Bool {
        guard let reply = try? callBus("NameHasOwner", GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(b)") else {
            return false
        }
        defer { g_variant_unref(reply) }
        let value = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(value) }
        return g_variant_get_boolean(value) != 0
    }

    /// Sends the signal `name` of `interface` to `destination` only (a unicast signal: no other peer receives it).
    func emitSignal(_ name: String, of interface: String = BrokerInterface.name, to destination: String, parameters: OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        g_dbus_connection_emit_signal(
            connection.pointer, destination, BrokerInterface.objectPath, interface, name, parameters, &error)
        if let error { g_error_free(error) }
    }

    /// Runs GLib's default main context on the calling (main) thread until ``stop()``.
    func run() {
        g_main_loop_run(loop.pointer)
    }

    /// Runs `body` on the main thread once the messages already received have been dispatched (an idle source of
    /// low priority: GDBus dispatches each received call at the default one); from any thread.
    func afterPendingMessages(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(CallbackBox(body)).toOpaque()
        g_idle_add_full(G_PRIORITY_LOW, { box in
            Unmanaged<CallbackBox>.fromOpaque(box!).takeUnretainedValue().body()
            return 0  // G_SOURCE_REMOVE
        }, box, { box in Unmanaged<CallbackBox>.fromOpaque(box!).release() })
    }

    private final class CallbackBox {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Makes ``run()`` return; from any thread.
    func stop() {
        g_main_loop_quit(loop.pointer)
    }

    /// A synchronous GDBus call makes a main context of its own, and GLib ends the process when it cannot: refused first.
    private static func checkDescriptorFree() throws(BrokerStartFailure) {
        do throws(DescriptorShortage) {
            try MainContexts.checkDescriptorFree()
        } catch {
            throw BrokerStartFailure("the bus was not asked: \(error.explanation)")
        }
    }

    private func callBus(_ method: String, _ parameters: OpaquePointer, replyType: String) throws(BrokerStartFailure) -> OpaquePointer {
        try Self.checkDescriptorFree()
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            connection.pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, parameters,
            type, G_DBUS_CALL_FLAGS_NONE, gint(Self.callTimeout.components.seconds * 1000), nil, &error)
        else {
            defer { g_error_free(error) }
            throw BrokerStartFailure("the bus did not answer \(method): \(Self.message(of: error))")
        }
        return reply
    }

    static func message(of error: UnsafeMutablePointer<GError>?) -> String {
        error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
    }

    private final class HandlerBox {
        let handlers: Handlers
        init(_ handlers: Handlers) { self.handlers = handlers }
    }

    /// GDBus's connection, used from any thread (GDBus locks it).
    private struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// GLib's main loop; `g_main_loop_quit` may be called from any thread.
    private struct MainLoop: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}

/// Why the broker cannot start or cannot ask the bus something, said so that the reader knows what to do.
struct BrokerStartFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
