import SystemSupport

/// Runs the work queued on `DispatchQueue.main`, and with it the main actor's, from GLib's default main
/// context: for a program whose main thread runs GLib's main loop (a GTK app in `g_application_run`),
/// where nothing else would ever run it.
///
/// A GTK app owns its main thread, and may touch widgets only there. Without this call, a block sent to
/// `DispatchQueue.main` and a `@MainActor` task wait forever, since neither `dispatch_main()` nor
/// Foundation's `RunLoop` runs on that thread. After it, they run there between GTK's own events, in the
/// order they were queued, also what was queued while the loop was busy. So KeyringAuth's `Auth`, with
/// `callbackQueue: .main`, calls its listeners and completion handlers where they may touch widgets:
///
/// ```swift
/// GLibMainQueue.attach()
/// Auth.configure(AuthConfiguration(app: FirebaseApp.app()!, callbackQueue: .main))
/// ```
///
/// Call it on the main thread, before the main loop runs, in a program whose `main` is synchronous (a
/// top-level `await` or `@main` with `async main()` hands the main thread to `dispatch_main()`, which
/// runs the main queue by itself). Calling it again does nothing.
public enum GLibMainQueue {
    /// Makes GLib's default main context run the dispatch main queue whenever work is queued on it.
    ///
    /// Stops the process when called off the main thread (a programming error, as a widget call there would be).
    public static func attach() {
        MainQueueBridge.attach()
    }
}
