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

    /// Answers with the D-Bus error of `error`.
    func fail(_ error: BrokerError) {
        guard let invocation = take() else { return }
        g_dbus_method_invocation_return_dbus_error(invocation.pointer, error.dbusName, error.message)
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
