import CSecret

/// The desktop portal's `org.freedesktop.portal.OpenURI`: how a Flatpak or Snap app opens a web page
/// in the user's browser, outside its sandbox (`xdg-open` inside a sandbox may find no browser).
///
/// KeyringAuth's desktop OAuth sign-in calls it first wherever the session has a portal (it keeps the URL out of
/// `xdg-open`'s arguments). It is here because this module already speaks D-Bus through GIO; not for users.
package enum OpenURIPortal {
    /// Asks the portal to open `uri` (an `http` or `https` URL) in the default browser.
    ///
    /// The portal answers once it has taken the request (it may ask the user which application to use);
    /// whether a browser then shows the page is not reported.
    ///
    /// - Parameters:
    ///   - uri: The URL to open.
    ///   - limit: How long to wait for the session bus and the portal's answer.
    /// - Returns: `nil` when the portal took the request, else why not (no session bus, no portal, a refusal).
    package static func open(_ uri: String, limit: Duration = .seconds(10)) -> String? {
        do throws(SecretServiceFailure) {
            let bus = try SecretServiceClient.sessionBus(limit: limit)
            defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
            let optionsType = g_variant_type_new("{sv}")
            defer { g_variant_type_free(optionsType) }
            let arguments = GLib.makeTupleVariant([
                g_variant_new_string(""), g_variant_new_string(uri), g_variant_new_array(optionsType, nil, 0),
            ])
            let reply = try SecretServiceClient.bounded(.connectBus, limit: limit) { cancellable, error in
                g_dbus_connection_call_sync(
                    bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI",
                    "OpenURI", arguments, nil, G_DBUS_CALL_FLAGS_NONE, Int32(limit.components.seconds * 1000), cancellable, error)
            }
            if let reply { g_variant_unref(reply) }
            return nil
        } catch {
            return "the desktop portal did not open it (\(error.detail))"
        }
    }
}
