internal import CGLib

/// The desktop portal's `org.freedesktop.portal.OpenURI`: how a Flatpak or Snap app opens a web page
/// in the user's browser, outside its sandbox (`xdg-open` inside a sandbox may find no browser).
///
/// KeyringAuth's desktop OAuth sign-in calls it first wherever the session has a portal (it keeps the URL out of
/// `xdg-open`'s arguments).
package enum OpenURIPortal {
    /// Asks the portal to open `uri` (an `http` or `https` URL) in the default browser. Blocks for
    /// at most `limit` twice (the bus, then the portal): call it off the cooperative pool.
    ///
    /// The portal answers once it has taken the request (it may ask the user which application to use);
    /// whether a browser then shows the page is not reported.
    ///
    /// - Parameters:
    ///   - uri: The URL to open.
    ///   - limit: How long to wait for the session bus, and then for the portal's answer.
    /// - Returns: `nil` when the portal took the request, else why not (no session bus, no portal, a refusal).
    package static func open(_ uri: String, limit: Duration = .seconds(10)) -> String? {
        var failure: String?
        let bus = bounded(limit, &failure) { cancellable, error in g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error) }
        guard let bus else { return "the desktop portal did not open it (no session bus: \(failure ?? "none"))" }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        // GLib's shared session connection exits the process when the bus goes away; a library must not.
        g_dbus_connection_set_exit_on_close(bus, 0)
        let optionsType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(optionsType) }
        var children: [OpaquePointer?] = [
            g_variant_new_string(""), g_variant_new_string(uri), g_variant_new_array(optionsType, nil, 0),
        ]
        let arguments = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        let milliseconds = Int32(min(limit.components.seconds, 86_400) * 1000)
        let reply = bounded(limit, &failure) { cancellable, error in
            g_dbus_connection_call_sync(
                bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI",
                "OpenURI", arguments, nil, G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, error)
        }
        guard let reply else { return "the desktop portal did not open it (\(failure ?? "no answer"))" }
        g_variant_unref(reply)
        return nil
    }

    /// Runs one blocking GIO call with a `GCancellable` that the ``DeadlineTimer`` cancels after `limit`;
    /// on failure, `failure` says why.
    private static func bounded<Value>(
        _ limit: Duration, _ failure: inout String?,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Value?
    ) -> Value? {
        let cancellable = g_cancellable_new()!
        defer { g_object_unref(cancellable) }
        let address = UInt(bitPattern: cancellable)
        let token = DeadlineTimer.shared.schedule(after: limit) {
            g_cancellable_cancel(UnsafeMutablePointer<GCancellable>(bitPattern: address))
        }
        defer { DeadlineTimer.shared.cancel(token) }
        var error: UnsafeMutablePointer<GError>?
        let value = body(cancellable, &error)
        if let error {
            defer { g_error_free(error) }
            failure = g_cancellable_is_cancelled(cancellable) != 0
                ? "no answer within \(limit.formattedSeconds)" : String(cString: error.pointee.message)
            return nil
        }
        return value
    }
}
