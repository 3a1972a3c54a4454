internal import CGLib
internal import CMainQueue

/// The dispatch main queue run from GLib's default main context: the body of SecretKeychain's public
/// `GLibMainQueue.attach()`.
package enum MainQueueBridge {
    /// Adds, once, a watch of the main queue's wake-ups to GLib's default main context.
    ///
    /// Stops the process when called off the main thread (a programming error, as a widget call there would be).
    package static func attach() {
        precondition(isMainThread, "GLibMainQueue.attach() called off the main thread")
        _ = watch
    }

    /// The default main context's watch, added once, on first use.
    private static let watch: UInt32 = {
        let channel = g_io_channel_unix_new(kra_main_queue_handle())
        defer { g_io_channel_unref(channel) }  // the watch holds its own reference; the descriptor stays open
        return g_io_add_watch(channel, G_IO_IN, { _, _, _ in
            precondition(isMainThread, "GLib's default main context runs off the main thread; GLibMainQueue needs it on the main thread")
            kra_main_queue_drain()
            return 1  // G_SOURCE_CONTINUE
        }, nil)
    }()

    private static var isMainThread: Bool { kra_is_main_thread() != 0 }
}
