internal import CGLib

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// GLib main contexts made without the risk of GLib's abort: `g_main_context_new` ends the process when no descriptor
/// is left for its wakeup (`Creating pipes for GWakeup: Too many open files`), so a descriptor is asked for first.
package enum MainContexts {
    /// A new `GMainContext *`, or a failure that says the process is out of descriptors.
    package static func make() throws(DescriptorShortage) -> OpaquePointer {
        try checkDescriptorFree()
        return g_main_context_new()
    }

    /// How many descriptors must be free before such a call: a main context's wakeup, a cancellable's, a new bus
    /// connection's socket, with room to spare for other threads.
    package static let descriptorMargin = 8

    /// Checks that ``descriptorMargin`` descriptors can be opened now: before a call that makes main contexts or
    /// cancellable wakeups of its own (GLib's and libsecret's synchronous calls, a bounded call's deadline), each
    /// one descriptor (an eventfd), where GLib ends the process when it cannot have one.
    package static func checkDescriptorFree() throws(DescriptorShortage) {
        var probes: [Int32] = []
        defer { probes.forEach { close($0) } }
        for _ in 0..<descriptorMargin {
            let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard probe >= 0 else { throw DescriptorShortage(code: errno) }
            probes.append(probe)
        }
    }
}

/// No descriptor could be opened: the process (or its service's `LimitNOFILE`) has as many open as it may.
package struct DescriptorShortage: Error, Sendable, CustomStringConvertible {
    package let code: Int32
    package var description: String { String(cString: strerror(code)) }
    /// The failure in a sentence that says what to do, for the error of the call that needed the descriptor.
    package var explanation: String {
        "no descriptor could be opened (\(description)): the process or this service's descriptor limit is reached; try again when "
            + "fewer are open"
    }
}
