import CSecret
import FoundationEssentials
import SystemSupport

/// libsecret's password API (`secret_password_*v_sync`) with the package's schema: what ``SecretPortalStore``
/// calls. Inside a sandbox whose portal answers, libsecret serves it from its file keyring. Each function frees
/// what it allocates before returning.
enum PasswordAPI {
    /// An item a search found, its secret's size read and the secret dropped.
    struct FoundItem {
        var attributes: [String: String]
        var label: String
        var created: Date
        var modified: Date
        var size: Int
    }

    /// The package's schema (``SecretServiceSchema``) as libsecret's password API takes it, made once.
    /// `@unchecked Sendable`: libsecret only reads it.
    private struct Schema: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<SecretSchema>
    }

    private static let schema: Schema = {
        let types = g_hash_table_new(g_str_hash, g_str_equal)!
        defer { g_hash_table_unref(types) }
        let attributeNames: [String] = [
            SecretServiceSchema.serviceAttribute, SecretServiceSchema.accountAttribute, SecretServiceSchema.scopeAttribute,
            SecretServiceSchema.accessGroupAttribute,
        ]
        let names = attributeNames.map { g_strdup($0)! }
        // SECRET_SCHEMA_ATTRIBUTE_STRING is 0: every value is the null pointer. The schema copies the names.
        for name in names { g_hash_table_insert(types, name, nil) }
        defer { names.forEach { g_free($0) } }
        return Schema(pointer: secret_schema_newv(SecretServiceSchema.name, SECRET_SCHEMA_NONE, types))
    }()

    /// The attributes as the password API takes them: libsecret adds `xdg:schema` itself.
    private static func withAttributes<Result>(
        _ attributes: [String: String], _ body: (OpaquePointer) throws(GLibError) -> Result
    ) throws(GLibError) -> Result {
        var attributes = attributes
        attributes[SecretServiceSchema.schemaAttribute] = nil
        let table = GLib.makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        return try body(table)
    }

    static func lookup(_ attributes: [String: String], cancellable: UnsafeMutablePointer<GCancellable>) throws(GLibError) -> Data? {
        try withAttributes(attributes) { table throws(GLibError) in
            let value = try GLib.withError { secret_password_lookupv_binary_sync(schema.pointer, table, cancellable, $0) }
            guard let value else { return nil }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            return bytes(of: value)
        }
    }

    static func store(
        _ data: Data, attributes: [String: String], label: String, cancellable: UnsafeMutablePointer<GCancellable>
    ) throws(GLibError) {
        try withAttributes(attributes) { table throws(GLibError) in
            // secret_value_new copies the bytes (an empty secret too: a NUL is read, its length is 0).
            let value = Data(data + [0]).withUnsafeBytes { bytes in
                secret_value_new(bytes.baseAddress!.assumingMemoryBound(to: gchar.self), gssize(data.count), SecretServiceSchema.binaryContentType)
            }!
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            _ = try GLib.withError { secret_password_storev_binary_sync(schema.pointer, table, nil, label, value, cancellable, $0) }
        }
    }

    /// Whether an item was removed.
    static func clear(_ attributes: [String: String], cancellable: UnsafeMutablePointer<GCancellable>) throws(GLibError) -> Bool {
        try withAttributes(attributes) { table throws(GLibError) in
            try GLib.withError { secret_password_clearv_sync(schema.pointer, table, cancellable, $0) } != 0
        }
    }

    static func search(_ attributes: [String: String], cancellable: UnsafeMutablePointer<GCancellable>) throws(GLibError) -> [FoundItem] {
        try withAttributes(attributes) { table throws(GLibError) in
            let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue)
            let list = try GLib.withError { secret_password_searchv_sync(schema.pointer, table, flags, cancellable, $0) }
            defer { g_list_free_full(list) { g_object_unref($0) } }
            var found: [FoundItem] = []
            var node = list
            while let current = node {
                defer { node = current.pointee.next }
                let item = OpaquePointer(current.pointee.data)
                let attributeTable = secret_retrievable_get_attributes(item)
                defer { if let attributeTable { g_hash_table_unref(attributeTable) } }
                let label = secret_retrievable_get_label(item)
                defer { g_free(label) }
                let secret = try GLib.withError { secret_retrievable_retrieve_secret_sync(item, cancellable, $0) }
                defer { if let secret { secret_value_unref(UnsafeMutableRawPointer(secret)) } }
                var size = 0
                if let secret { _ = secret_value_get(secret, &size) }
                found.append(FoundItem(
                    attributes: attributeTable.map(GLib.stringDictionary(ofTable:)) ?? [:], label: label.map { String(cString: $0) } ?? "",
                    created: Date(timeIntervalSince1970: TimeInterval(secret_retrievable_get_created(item))),
                    modified: Date(timeIntervalSince1970: TimeInterval(secret_retrievable_get_modified(item))), size: size))
            }
            return found
        }
    }

    private static func bytes(of value: OpaquePointer) -> Data {
        var length = 0
        guard let bytes = secret_value_get(value, &length), length > 0 else { return Data() }
        return Data(bytes: bytes, count: length)
    }

    /// Whether libsecret's password API uses its file keyring in this process (`secret_backend_get`'s choice, made
    /// once per process), within `limit`.
    ///
    /// libsecret 0.20.5 opens its file keyring with a race and a deadlock (`secret-file-backend.c`): it subscribes to the
    /// portal Request's `Response` only once `RetrieveSecret` has answered, so a quick portal's answer is sometimes lost
    /// and the opening waits forever; and cancelling that wait calls `g_cancellable_disconnect` inside the cancellable's
    /// own handler, which never returns. So no cancellable is passed here: each attempt gets at most a fifth of `limit`
    /// (at least a second), and an attempt that has not finished by then is left behind (it holds a pipe and its main
    /// context, kept for it) while the next asks the portal again. Once an attempt succeeds, libsecret keeps the opened
    /// keyring for every later call, which never meets the portal again.
    ///
    /// GLib (with its fix for CVE-2024-34397) matches a signal from a well-known name only once it knows the name's
    /// owner, and asks the bus for it when the first subscription names the sender: libsecret's subscription, made
    /// after `RetrieveSecret` has answered, would wait for that answer while the portal's `Response` is on its way, and
    /// lose the race more often than not when the process is slowed down. So each attempt holds a subscription of its
    /// own to the portal's Request signals from before libsecret's first call (``PortalOwnerWatch``): GLib learns the
    /// owner then, and matches libsecret's subscription at once.
    static func backendIsFileKeyring(limit: Duration) -> Result<Bool, KeychainError> {
        let attemptLimit = max(.seconds(1), limit / 5)
        let clock = ContinuousClock()
        let end = clock.now + limit
        var attempts = 0
        while clock.now < end {
            attempts += 1
            switch openBackend(within: min(attemptLimit, end - clock.now)) {
            case .finished(let result): return result
            case .unfinished: continue
            }
        }
        return .failure(.timedOut(operation: "Opening the portal keyring (\(attempts) attempts)", limit: limit, writes: false))
    }

    private enum Attempt {
        case finished(Result<Bool, KeychainError>)
        case unfinished
    }

    /// What an attempt waits on: libsecret's answer, or its time running out.
    private final class Outcome {
        var result: OpaquePointer?
        var timedOut = false
    }

    /// One `secret_backend_get`, on a main context of this thread's own, given up after `limit`.
    private static func openBackend(within limit: Duration) -> Attempt {
        let context: OpaquePointer
        do throws(KeychainError) { context = try MainContexts.forKeychain() } catch { return .finished(.failure(error)) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let watch = PortalOwnerWatch(limit: limit)
        defer { watch?.end() }
        let outcome = Outcome()
        // Two references: libsecret's callback and the timeout each release one; an attempt left behind keeps its context.
        let box = Unmanaged.passRetained(outcome).toOpaque()
        secret_backend_get(SECRET_BACKEND_NONE, nil, { _, result, box in
            let outcome = Unmanaged<Outcome>.fromOpaque(box!).takeRetainedValue()
            outcome.result = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(result)))
        }, box)
        let timeout = g_timeout_source_new(limit.timerMilliseconds)!
        defer { g_source_unref(timeout) }
        g_source_set_callback(timeout, { box in
            Unmanaged<Outcome>.fromOpaque(box!).takeUnretainedValue().timedOut = true
            return 0  // G_SOURCE_REMOVE
        }, Unmanaged.passRetained(outcome).toOpaque(), { Unmanaged<Outcome>.fromOpaque($0!).release() })
        g_source_attach(timeout, context)
        while outcome.result == nil, !outcome.timedOut { g_main_context_iteration(context, 1) }
        g_source_destroy(timeout)
        guard let result = outcome.result else { return .unfinished }  // the context stays, for libsecret's pending work
        defer { g_main_context_unref(context) }
        defer { g_object_unref(UnsafeMutableRawPointer(result)) }
        var error: UnsafeMutablePointer<GError>?
        guard let backend = secret_backend_get_finish(result, &error) else {
            let failure = error.map { GLibError(taking: $0) }
            return .finished(.failure(.noPortal(detail: "libsecret could not open its file keyring: \(failure?.message ?? "no reason given")")))
        }
        // Not released: libsecret 0.20 caches the backend it creates first without a reference of its own, and hands
        // that same reference to this caller (`secret_backend_get_finish`); releasing it would free the cached backend
        // under the password API. At most one reference is kept, once per process.
        let typeName = g_type_name_from_instance(UnsafeMutableRawPointer(backend).assumingMemoryBound(to: GTypeInstance.self))
        return .finished(.success(typeName.map { String(cString: $0) } == "SecretFileBackend"))
    }

    /// A subscription to the portal's `org.freedesktop.portal.Request` `Response` signals on the process's shared
    /// session connection (libsecret's), handling none: while it lasts, GLib follows who owns
    /// `org.freedesktop.portal.Desktop` (`GetNameOwner` and `NameOwnerChanged`), for every subscription naming it.
    /// Made in the attempt's main context, which dispatches its (empty) handler while the attempt runs.
    private struct PortalOwnerWatch {
        let bus: OpaquePointer
        let subscription: guint

        /// `nil` where no bus is reached: libsecret then fails as it would.
        init?(limit: Duration) {
            guard let bus = try? SessionBusCall.connection(limit: limit) else { return nil }
            self.bus = bus
            subscription = g_dbus_connection_signal_subscribe(
                bus, SecretPortalStore.portalName, "org.freedesktop.portal.Request", "Response", nil, nil,
                G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE, { _, _, _, _, _, _, _ in }, nil, nil)
        }

        func end() {
            g_dbus_connection_signal_unsubscribe(bus, subscription)
            g_object_unref(UnsafeMutableRawPointer(bus))
        }
    }
}
