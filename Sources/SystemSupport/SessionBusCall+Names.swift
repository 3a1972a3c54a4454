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

extension SessionBusCall {
    /// The connections that hold `name`, its owner first and then those queued for it (`ListQueuedOwners`); none when
    /// nobody owns it.
    package static func queuedOwners(of name: String, limit: Duration) throws(Failure) -> [String] {
        let reply: OpaquePointer
        do throws(Failure) {
            reply = try call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListQueuedOwners",
                arguments: GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(as)", limit: limit)
        } catch let error where error.isServiceUnknown {
            return []
        }
        defer { g_variant_unref(reply) }
        let names = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(names) }
        return (0..<g_variant_n_children(names)).map { index in
            let child = g_variant_get_child_value(names, index)!
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
    }

    /// The process ID of the connection that owns `name`, a unique or well-known name (`GetConnectionUnixProcessID`).
    package static func processID(of name: String, limit: Duration) throws(Failure) -> Int32 {
        let reply = try call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
            arguments: GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(u)", limit: limit)
        defer { g_variant_unref(reply) }
        return Int32(bitPattern: GVariantValues.uint32(at: 0, of: reply))
    }
}
