internal import CGLib

extension SessionBusCall {
    /// What the session bus knows of a well-known name.
    package enum NameState: String, Sendable, Equatable {
        /// A connection owns it now.
        case owned
        /// Nobody owns it, and the bus starts its service at the first call (an activation file names it).
        case activatable
        /// Nobody owns it, and nothing would start it.
        case absent
    }

    /// Whether `name` is owned, activatable or absent on the session bus (`NameHasOwner`, `ListActivatableNames`).
    package static func state(of name: String, limit: Duration) throws(Failure) -> NameState {
        let owned = try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
            arguments: GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(b)", limit: limit)
        defer { g_variant_unref(owned) }
        if GVariantValues.bool(at: 0, of: owned) { return .owned }
        let activatable = try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListActivatableNames", arguments: nil,
            replyType: "(as)", limit: limit)
        defer { g_variant_unref(activatable) }
        let names = g_variant_get_child_value(activatable, 0)!
        defer { g_variant_unref(names) }
        for index in 0..<g_variant_n_children(names) {
            let child = g_variant_get_child_value(names, index)!
            defer { g_variant_unref(child) }
            if String(cString: g_variant_get_string(child, nil)) == name { return .activatable }
        }
        return .absent
    }
}
