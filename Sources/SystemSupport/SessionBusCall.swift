internal import CGLib
import Synchronization

/// One method call on the session bus through GDBus, bounded in time: the connection, then the call,
/// each within the limit (a `GCancellable` the ``DeadlineTimer`` cancels, and GDBus's own timeout).
/// Blocks the calling thread: call it off the cooperative pool.
///
/// GLib's shared session connection is used, with its exit-on-close turned off (a library must not end
/// the process when the bus goes away), and kept (``shared``): GLib closes its shared connection when the last
/// reference goes, and the next call would come from a new unique name, which a service (the broker) takes for a
/// client that left.
package enum SessionBusCall {
    /// Why a call failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, by kind.
        package enum Kind: Sendable, Equatable {
            /// No session bus could be reached.
            case noBus
            /// No answer within the limit.
            case timedOut
            /// The peer (or the bus) answered with the D-Bus error of this name.
            case remote(String)
            /// Anything else GDBus reported (a closed connection, a reply of the wrong type).
            case other
        }

        package let kind: Kind
        package let message: String

        package init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }

        package var description: String { message }

        /// Whether nobody owns the name and nothing could be activated for it.
        package var isServiceUnknown: Bool {
            kind == .remote("org.freedesktop.DBus.Error.ServiceUnknown") || kind == .remote("org.freedesktop.DBus.Error.NameHasNoOwner")
                || kind == .remote("org.freedesktop.DBus.Error.Spawn.ServiceNotFound")
        }
    }

    /// GLib's shared session connection, kept from its first use until it is closed (`GDBusConnection`, used from any thread).
    private static let shared = Mutex<ConnectionReference?>(nil)

    private struct ConnectionReference: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The shared session connection, with a reference for the caller (`g_object_unref` it), kept open by this process.
    package static func connection(limit: Duration) throws(Failure) -> OpaquePointer {
        if let kept = shared.withLock({ kept -> OpaquePointer? in
            guard let connection = kept?.pointer else { return nil }
            guard g_dbus_connection_is_closed(connection) == 0 else {
                g_object_unref(UnsafeMutableRawPointer(connection))
                kept = nil
                return nil
            }
            return OpaquePointer(g_object_ref(UnsafeMutableRawPointer(connection)))
        }) {
            return kept
        }
        let bus = try bounded(limit, noBus: true) { cancellable, error in g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error) }
        g_dbus_connection_set_exit_on_close(bus, 0)
        shared.withLock { kept in
            if let old = kept?.pointer, old != bus { g_object_unref(UnsafeMutableRawPointer(old)) }
            if kept?.pointer != bus { kept = ConnectionReference(pointer: OpaquePointer(g_object_ref(UnsafeMutableRawPointer(bus)))) }
        }
        return bus
    }

    /// Calls `method` and returns its reply (a tuple `GVariant` the caller unrefs with `g_variant_unref`).
    ///
    /// - Parameters:
    ///   - arguments: The arguments' tuple, floating (consumed), or `nil` for none.
    ///   - descriptors: A `GUnixFDList *` whose descriptors travel with the call (the arguments' handles index it), or `nil`.
    ///   - replyType: The reply's type, for example `(v)`; GDBus refuses any other.
    ///   - limit: How long to wait for the bus, and then for the answer.
    package static func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, arguments: OpaquePointer?,
        descriptors: OpaquePointer? = nil, replyType: String, limit: Duration
    ) throws(Failure) -> OpaquePointer {
        let bus = try connection(limit: limit)
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        let milliseconds = Int32(min(limit.timerMilliseconds, 86_400_000))
        return try bounded(limit, noBus: false) { cancellable, error in
            guard let descriptors else {
                return g_dbus_connection_call_sync(
                    bus, destination, path, interface, method, arguments, type, G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, error)
            }
            return g_dbus_connection_call_with_unix_fd_list_sync(
                bus, destination, path, interface, method, arguments, type, G_DBUS_CALL_FLAGS_NONE, milliseconds,
                UnsafeMutablePointer<GUnixFDList>(descriptors), nil, cancellable, error)
        }
    }

    /// Runs one blocking GIO call with a ``CancellableDeadline`` of `limit`.
    private static func bounded<Value>(
        _ limit: Duration, noBus: Bool,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Value?
    ) throws(Failure) -> Value {
        let deadline: CancellableDeadline
        do throws(OwnThreadFailure) {
            deadline = try CancellableDeadline(limit: limit)
        } catch {
            throw Failure(kind: .other, message: "the call was not made: \(error.explanation)")
        }
        // The synchronous call makes a main context of its own, and GLib ends the process when it cannot.
        do throws(DescriptorShortage) {
            try MainContexts.checkDescriptorFree()
        } catch {
            throw Failure(kind: .other, message: "the call was not made: \(error.explanation)")
        }
        defer { withExtendedLifetime(deadline) {} }  // the cancellable lives until the call has returned
        let cancellable = UnsafeMutablePointer<GCancellable>(deadline.cancellable)
        var error: UnsafeMutablePointer<GError>?
        let value = body(cancellable, &error)
        if let value, error == nil { return value }
        guard let error else { throw Failure(kind: .other, message: "no answer and no error") }
        defer { g_error_free(error) }
        throw failure(error, expired: deadline.hasExpired, limit: limit, noBus: noBus)
    }

    /// The failure a GIO call's `error` stands for (not freed here); `expired` when its deadline has passed.
    static func failure(_ error: UnsafeMutablePointer<GError>, expired: Bool, limit: Duration, noBus: Bool) -> Failure {
        let timedOut = expired || (error.pointee.domain == g_io_error_quark() && error.pointee.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue))
        if timedOut { return Failure(kind: .timedOut, message: "no answer within \(limit.formattedSeconds)") }
        if noBus { return Failure(kind: .noBus, message: "no session bus: \(String(cString: error.pointee.message))") }
        if g_dbus_error_is_remote_error(error) != 0, let name = g_dbus_error_get_remote_error(error) {
            defer { g_free(name) }
            g_dbus_error_strip_remote_error(error)
            return Failure(kind: .remote(String(cString: name)), message: String(cString: error.pointee.message))
        }
        return Failure(kind: .other, message: String(cString: error.pointee.message))
    }
}
