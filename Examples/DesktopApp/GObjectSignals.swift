import CGtk

/// GTK's C API in Swift: a widget pointer as the pointer type of one of its classes, and a Swift closure as a
/// signal handler. Both run on the main thread only, where GTK calls its handlers.
@MainActor
enum GObjectSignals {
    /// Calls `action` on the main actor whenever `instance` emits `signal` (one whose handler takes only the
    /// emitter, as a button's "clicked" or an application's "activate"), for as long as `instance` lives.
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ action: @escaping @MainActor () -> Void) {
        let handler = Unmanaged.passRetained(Handler(action)).toOpaque()
        let call: @convention(c) (gpointer?, gpointer?) -> Void = { _, handler in
            // GTK emits signals on the thread that runs its main loop: the main thread, the main actor's.
            MainActor.assumeIsolated { Unmanaged<Handler>.fromOpaque(handler!).takeUnretainedValue().action() }
        }
        let release: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { handler, _ in
            Unmanaged<Handler>.fromOpaque(handler!).release()
        }
        g_signal_connect_data(instance, signal, unsafeBitCast(call, to: GCallback.self), handler, release, GConnectFlags(0))
    }

    private final class Handler {
        let action: @MainActor () -> Void
        init(_ action: @escaping @MainActor () -> Void) { self.action = action }
    }
}

/// `widget` as a pointer to one of the classes it is an instance of (GTK's `GTK_WINDOW (widget)` and the like);
/// the `OpaquePointer` form for the classes whose structure GTK 4 keeps private (`GtkBox`, `GtkLabel`, …).
func gtkCast(_ widget: UnsafeMutablePointer<GtkWidget>) -> OpaquePointer {
    OpaquePointer(widget)
}

func gtkCast<Class>(_ widget: UnsafeMutablePointer<GtkWidget>, to _: Class.Type = Class.self) -> UnsafeMutablePointer<Class> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Class.self)
}
