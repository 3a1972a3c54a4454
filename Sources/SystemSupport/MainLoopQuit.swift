internal import CGLib

/// Ending a GLib main loop that runs on a thread of its own, from any thread.
package enum MainLoopQuit {
    /// Makes `loop` (a `GMainLoop *` on `context`, a `GMainContext *`) return, from any thread, also when it has not
    /// started running yet: an idle source attached to `context` quits it once the loop dispatches.
    package static func post(_ loop: OpaquePointer, on context: OpaquePointer) {
        let source = g_idle_source_new()!
        defer { g_source_unref(source) }
        g_source_set_callback(
            source, { loop in
                g_main_loop_quit(OpaquePointer(loop))
                return 0  // G_SOURCE_REMOVE
            }, UnsafeMutableRawPointer(g_main_loop_ref(loop)), { g_main_loop_unref(OpaquePointer($0)) })
        g_source_attach(source, context)
    }
}
