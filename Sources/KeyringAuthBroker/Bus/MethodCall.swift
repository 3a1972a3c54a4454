import CSecret
import Synchronization
import SystemSupport

/// One method call received by the broker, answered exactly once, from any thread.
///
/// A call dropped without an answer is answered with an internal error, so that no client waits
/// for its timeout because of a broker bug.
final class MethodCall: Sendable {
    /// The caller's unique bus name, for example `:1.42`.
    let sender: String
    /// The interface called, for example `io.github.keyringauth.Broker1`.
    let interface: String
    /// The method's name, for example `SignInAnonymously`.
    let method: String
    /// The arguments, as GDBus checked them against the method's signature (a tuple). Owned: unref'd with the call.
    private let parameterTuple: VariantReference
    /// GDBus's invocation, consumed by the one answer.
    private let invocation: Mutex<InvocationReference?>

    init(invocation: OpaquePointer, sender: String, interface: String, method: String, parameters: OpaquePointer) {
        self.invocation = Mutex(InvocationReference(pointer: invocation))
        self.sender = sender
        self.interface = interface
        self.method = method
        parameterTuple = VariantReference(pointer: g_variant_ref(parameters))
    }

    deinit {
        fail(BrokerError(.failed, "The broker dropped the call without an answer (a bug in keyring-auth-broker)."))
        g_variant_unref(parameterTuple.pointer)
    }

    /// The arguments tuple, valid while the call lives.
    var parameters: OpaquePointer { parameterTuple.pointer }

    /// Answers with `values` (each floating, consumed), as the method's out-arguments.
    func reply(_ values: [OpaquePointer?] = []) {
        guard let invocation = take() else { return }
        g_dbus_method_invocation_return_value(invocation.pointer, GVariantValues.tuple(values))
    }

    /// Answers with the D-Bus error of `error`: its message, and after it the second factor's handle and factors where
    /// it has them (a D-Bus error may carry arguments after its message; clients that read only the message get it).
    func fail(_ error: BrokerError) {
        guard let invocation = take() else { return }
        guard let secondFactor = error.secondFactor else {
            g_dbus_method_invocation_return_dbus_error(invocation.pointer, error.dbusName, error.message)
            return
        }
        // The invocation is answered by sending the error message itself, then released (as the return_ calls do).
        defer { g_object_unref(UnsafeMutableRawPointer(invocation.pointer)) }
        let reply = g_dbus_message_new_method_error_literal(g_dbus_method_invocation_get_message(invocation.pointer), error.dbusName, error.message)!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        g_dbus_message_set_body(reply, GVariantValues.tuple([
            g_variant_new_string(error.message), g_variant_new_string(secondFactor.handle),
            GVariantValues.array(of: "a{sv}", secondFactor.factors.map { GVariants.dictionary($0) }),
        ]))
        g_dbus_connection_send_message(g_dbus_method_invocation_get_connection(invocation.pointer), reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
    }

    private func take() -> InvocationReference? {
        invocation.withLock { invocation in defer { invocation = nil }; return invocation }
    }

    /// A `GDBusMethodInvocation`, answered from whichever thread finishes the call (GDBus allows it).
    private struct InvocationReference: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// A `GVariant`, immutable and reference-counted atomically.
    private struct VariantReference: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}
