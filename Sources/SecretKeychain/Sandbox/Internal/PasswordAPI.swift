import CSecret
import FoundationEssentials

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

    /// Whether libsecret's password API uses its file keyring in this process (`secret_backend_get`'s choice,
    /// made once per process), asked on a main context of this thread's own.
    static func backendIsFileKeyring(limit: Duration) -> Result<Bool, KeychainError> {
        let context = g_main_context_new()!
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let deadline = CallDeadline(limit: limit)
        final class Outcome { var result: OpaquePointer? }
        let outcome = Outcome()
        let box = Unmanaged.passRetained(outcome).toOpaque()
        secret_backend_get(SECRET_BACKEND_NONE, deadline.cancellable, { _, result, box in
            let outcome = Unmanaged<Outcome>.fromOpaque(box!).takeRetainedValue()
            outcome.result = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(result)))
        }, box)
        while outcome.result == nil { g_main_context_iteration(context, 1) }
        let result = outcome.result!
        defer { g_object_unref(UnsafeMutableRawPointer(result)) }
        var error: UnsafeMutablePointer<GError>?
        guard let backend = secret_backend_get_finish(result, &error) else {
            let failure = error.map { GLibError(taking: $0) }
            if deadline.hasExpired { return .failure(.timedOut(operation: "Opening the portal keyring", limit: limit, writes: false)) }
            return .failure(.noPortal(detail: "libsecret could not open its file keyring: \(failure?.message ?? "no reason given")"))
        }
        // Not released: libsecret 0.20 caches the backend it creates first without a reference of its own, and hands
        // that same reference to this caller (`secret_backend_get_finish`); releasing it would free the cached backend
        // under the password API. At most one reference is kept, once per store.
        let typeName = g_type_name_from_instance(UnsafeMutableRawPointer(backend).assumingMemoryBound(to: GTypeInstance.self))
        return .success(typeName.map { String(cString: $0) } == "SecretFileBackend")
    }
}
