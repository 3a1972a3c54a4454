import CSecret
import Synchronization

/// Keeps libsecret from crashing the process when the provider restarts.
///
/// libsecret 0.20's `SecretService` answers the Secret Service's `CollectionCreated` and `CollectionDeleted` signals by
/// rewriting its cached `Collections` property, which it iterates without checking that it has one. GDBus drops a
/// proxy's cached properties when the name's owner goes and fetches them again when a new one comes; a signal that
/// arrives first (KeePassXC sends `CollectionCreated` as soon as it opens its database) then crashes whichever thread
/// runs the main context the service was made in: a broker's or a GTK app's main thread. A handler that runs before
/// libsecret's own stops such a signal while no `Collections` is cached: libsecret had nothing to rewrite, and loads
/// the property with the rest.
enum CollectionSignalGuard {
    /// The service objects guarded, by address; an object's entry goes with it (a weak reference's notification).
    private static let guarded = Mutex<Set<UInt>>([])

    /// Connects the handler to `service`'s `g-signal`, once per object.
    static func install(on service: UnsafeMutablePointer<SecretService>) {
        let address = UInt(bitPattern: service)
        guard guarded.withLock({ $0.insert(address).inserted }) else { return }
        g_signal_connect_data(service, "g-signal", unsafeBitCast(stopUnguardedSignal, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
        g_object_weak_ref(UnsafeMutablePointer<GObject>(OpaquePointer(service)), forget, nil)
    }

    /// `g-signal`'s handler: stops `CollectionCreated` and `CollectionDeleted` while no `Collections` is cached.
    private static let stopUnguardedSignal: @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, OpaquePointer?, gpointer?
    ) -> Void = { proxy, _, signalName, _, _ in
        guard let proxy, let signalName else { return }
        let name = String(cString: signalName)
        guard name == "CollectionCreated" || name == "CollectionDeleted" else { return }
        if let cached = g_dbus_proxy_get_cached_property(proxy.assumingMemoryBound(to: GDBusProxy.self), "Collections") {
            g_variant_unref(cached)
            return
        }
        guard let hint = g_signal_get_invocation_hint(proxy) else { return }
        g_signal_stop_emission(proxy, hint.pointee.signal_id, hint.pointee.detail)
    }

    /// The weak reference's notification: the object is gone, and its address may be another's next.
    private static let forget: @convention(c) (gpointer?, UnsafeMutablePointer<GObject>?) -> Void = { _, object in
        guard let object else { return }
        _ = guarded.withLock { $0.remove(UInt(bitPattern: object)) }
    }
}
