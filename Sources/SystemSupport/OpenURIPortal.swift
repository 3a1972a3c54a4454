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
        let optionsType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(optionsType) }
        var children: [OpaquePointer?] = [
            g_variant_new_string(""), g_variant_new_string(uri), g_variant_new_array(optionsType, nil, 0),
        ]
        let arguments = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        do throws(SessionBusCall.Failure) {
            let reply = try SessionBusCall.call(
                "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI", "OpenURI",
                arguments: arguments, replyType: "(o)", limit: limit)
            g_variant_unref(reply)
            return nil
        } catch {
            return "the desktop portal did not open it (\(error.message))"
        }
    }
}
