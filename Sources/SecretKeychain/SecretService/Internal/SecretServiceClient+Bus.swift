import CSecret
import SystemSupport

extension SecretServiceClient {
    /// GLib's shared session-bus connection (the one libsecret uses), with a reference the caller
    /// releases with `g_object_unref`.
    ///
    /// - Throws: ``KeychainError/noSessionBus(detail:)`` (as `.keychain`) when there is no bus.
    static func sessionBus(limit: Duration) throws(SecretServiceFailure) -> OpaquePointer {
        let bus: OpaquePointer?
        do {
            bus = try bounded(.connectBus, limit: limit) { cancellable, error in
                g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error)
            }
        } catch .glib(let error, _) {
            throw .keychain(.noSessionBus(detail: error.message))
        }
        guard let bus else { throw .keychain(.noSessionBus(detail: "GLib returned no connection")) }
        // GLib's shared session connection exits the process when the bus goes away; a library must not.
        g_dbus_connection_set_exit_on_close(bus, 0)
        return bus
    }

    /// A connection of its own to the session bus (not GLib's shared one), constructed in the
    /// calling thread's thread-default main context, where it emits `closed` when the bus goes
    /// away. The caller releases it with `g_object_unref` after `g_dbus_connection_close`.
    ///
    /// - Throws: ``KeychainError/noSessionBus(detail:)`` (as `.keychain`) when there is no bus.
    static func privateSessionBus(limit: Duration) throws(SecretServiceFailure) -> OpaquePointer {
        let bus: OpaquePointer?
        do throws(SecretServiceFailure) {
            let address = try bounded(.connectBus, limit: limit) { cancellable, error in
                g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, cancellable, error)
            }
            guard let address else { throw SecretServiceFailure.keychain(.noSessionBus(detail: "GLib found no bus address")) }
            defer { g_free(address) }
            let flags = GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            bus = try bounded(.connectBus, limit: limit) { cancellable, error in
                g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, error)
            }
        } catch .glib(let error, _) {
            throw .keychain(.noSessionBus(detail: error.message))
        } catch {
            throw error
        }
        guard let bus else { throw .keychain(.noSessionBus(detail: "GLib returned no connection")) }
        return bus
    }

    /// Calls a method of the bus daemon (the arguments floating, consumed) that returns one string or number.
    static func busDaemonCall(
        _ bus: OpaquePointer, _ method: String, _ arguments: [OpaquePointer?], limit: Duration
    ) throws(SecretServiceFailure) -> String {
        let reply = try bounded(.connectBus, limit: limit) { cancellable, error in
            g_dbus_connection_call_sync(
                bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                GVariantValues.tuple(arguments), nil, G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error)
        }
        guard let reply else { throw .keychain(.noProvider(detail: "the bus gave no answer to \(method)")) }
        defer { g_variant_unref(reply) }
        let value = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(value) }
        if GVariantValues.hasType(value, "u") { return String(g_variant_get_uint32(value)) }
        guard GVariantValues.hasType(value, "s") else { throw .keychain(.noProvider(detail: "an unexpected answer to \(method)")) }
        return GLib.string(of: value)
    }

    /// Forgets libsecret's shared service, so that the next ``connect(limit:)`` reaches the
    /// provider that owns the name now.
    static func disconnect() {
        secret_service_disconnect()
    }
}
