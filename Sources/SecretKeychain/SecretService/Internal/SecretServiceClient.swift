import CSecret
import SystemSupport
import FoundationEssentials

/// The calls the store makes, each one bounded by a ``CallDeadline`` of ``limit``.
struct SecretServiceClient {
    let service: SecretServiceHandle
    let limit: Duration

    /// The bus name a Secret Service provider owns.
    static let busName = "org.freedesktop.secrets"

    /// Connects to libsecret's shared service (reusing the process's connection and session).
    static func connect(limit: Duration) throws(SecretServiceFailure) -> SecretServiceClient {
        // The bus first, so that "no bus" and "no provider" are told apart. Its reference is held
        // until libsecret's service holds one: GLib's shared connection is freed with its last
        // reference, and libsecret would then open a second connection (with exit-on-close on).
        let bus = try sessionBus(limit: limit)
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        let service = try bounded(.openSession, limit: limit) { cancellable, error in
            secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, error)
        }
        guard let service else {
            throw .keychain(.noProvider(detail: "libsecret returned no service"))
        }
        CollectionSignalGuard.install(on: service)
        return SecretServiceClient(service: SecretServiceHandle(taking: service), limit: limit)
    }

    /// Runs one blocking call with a fresh deadline of `limit`.
    static func bounded<Result>(
        _ call: SecretServiceCall, limit: Duration,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
    ) throws(SecretServiceFailure) -> Result {
        let deadline: CallDeadline
        do throws(KeychainError) { deadline = try CallDeadline(limit: limit) } catch { throw .keychain(error) }
        defer { withExtendedLifetime(deadline) {} }  // the cancellable lives until the call has returned
        do {
            return try GLib.withError { body(deadline.cancellable, $0) }
        } catch {
            if error.isCancelled && deadline.hasExpired {
                throw .expired(call: call, limit: limit)
            }
            throw .glib(error, call: call)
        }
    }

    func bounded<Result>(
        _ call: SecretServiceCall, limit: Duration? = nil,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
    ) throws(SecretServiceFailure) -> Result {
        try Self.bounded(call, limit: limit ?? self.limit, body)
    }

    /// The object path an alias points to, or `nil` when it points nowhere.
    func readAlias(_ alias: String) throws(SecretServiceFailure) -> String? {
        let path = try bounded(.readAlias) { cancellable, error in
            secret_service_read_alias_dbus_path_sync(service.pointer, alias, cancellable, error)
        }
        guard let path else { return nil }
        defer { g_free(path) }
        let string = String(cString: path)
        return string == "/" ? nil : string
    }

    /// The paths of the items whose attributes include `attributes`, in every collection.
    func search(_ attributes: [String: String]) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        let table = GLib.makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        _ = try bounded(.search) { cancellable, error in
            secret_service_search_for_dbus_paths_sync(service.pointer, nil, table, cancellable, &unlocked, &locked, error)
        }
        return (GLib.takeStringArray(unlocked), GLib.takeStringArray(locked))
    }

    /// The secret of the item at `path`, or `nil` when the provider returned none. A secret over
    /// `sizeLimit` bytes is not copied: it throws ``KeychainError/oversizedItem(_:size:limit:)``.
    /// (The Secret Service sends the whole secret; libsecret's copy is freed at once.)
    func secret(at path: String, sizeLimit: Int) throws(SecretServiceFailure) -> StoredSecret? {
        try withSecretValue(at: path) { value, length throws(SecretServiceFailure) in
            guard length <= sizeLimit else { throw .keychain(.oversizedItem(path, size: length, limit: sizeLimit)) }
            return Self.storedSecret(value)
        }
    }

    /// The size of the secret at `path`, or `nil` when the provider returned none. Reads the one
    /// secret and keeps only its length.
    func secretSize(at path: String) throws(SecretServiceFailure) -> Int? {
        try withSecretValue(at: path) { _, length in length }
    }

    /// A digest of the secret at `path` (its bytes and content type, hashed with this process's
    /// random seed), or `nil` when the provider returned none: what tells a changed secret from
    /// the same one without keeping a copy of either.
    func secretDigest(at path: String) throws(SecretServiceFailure) -> Int? {
        try withSecretValue(at: path) { value, length in
            var hasher = Hasher()
            if let bytes = secret_value_get(value, nil) {
                hasher.combine(bytes: UnsafeRawBufferPointer(start: bytes, count: length))
            }
            hasher.combine(length)
            hasher.combine(secret_value_get_content_type(value).map { String(cString: $0) })
            return hasher.finalize()
        }
    }

    /// Reads the secret at `path` and passes libsecret's value and its length to `body`, freeing
    /// the value after; `nil` when the provider returned none.
    private func withSecretValue<Result>(
        at path: String, _ body: (OpaquePointer, Int) throws(SecretServiceFailure) -> Result
    ) throws(SecretServiceFailure) -> Result? {
        guard let value = try secretValue(at: path) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        _ = secret_value_get(value, &length)
        return try body(value, Int(length))
    }

    /// libsecret's value of the secret of the item at `path` (the caller releases it with `secret_value_unref`), or `nil`
    /// when the provider returned none: the item is locked, or was deleted since it was found. Read as libsecret reads
    /// it (the service's `GetSecrets` for one path, decoded for libsecret's session), but with the reply released
    /// here: libsecret 0.20's own read (`secret_service_get_secret_for_dbus_path`) keeps every reply it decodes, a
    /// kilobyte or so a read, which a service reading all day cannot afford.
    func secretValue(at path: String, limit: Duration? = nil) throws(SecretServiceFailure) -> OpaquePointer? {
        guard let session = secret_service_get_session_dbus_path(service.pointer) else {
            throw .brokenSession(detail: "libsecret has no session with the provider")
        }
        let paths = path.withCString { item in
            var items: [UnsafePointer<gchar>?] = [item]
            return g_variant_new_objv(&items, 1)
        }
        let reply = try callProvider(
            .getSecret, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service", method: "GetSecrets",
            arguments: GVariantValues.tuple([paths, g_variant_new_object_path(session)]), replyType: "(a{o(oayays)})",
            limit: limit)
        defer { g_variant_unref(reply) }
        let secrets = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(secrets) }
        guard g_variant_n_children(secrets) > 0 else { return nil }
        let entry = g_variant_get_child_value(secrets, 0)!
        defer { g_variant_unref(entry) }
        let encoded = g_variant_get_child_value(entry, 1)!
        defer { g_variant_unref(encoded) }
        return secret_service_decode_dbus_secret(service.pointer, encoded)
    }

    /// Stores an item in `collectionPath`, replacing the item with the same attributes unless
    /// `replacing` is false, and returns the path of the item written. `Collection.CreateItem` is
    /// called directly (the secret encoded for libsecret's session by libsecret) so that a prompt the
    /// provider answers with runs within the call's limit (see ``deleteItem(at:)``: KeePassXC answers
    /// every `CreateItem` with one).
    func createItem(
        in collectionPath: String, label: String, attributes: [String: String], secret: Data, contentType: String,
        replacing: Bool = true
    ) throws(SecretServiceFailure) -> String {
        let start = ContinuousClock.now
        let propertyType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(propertyType) }
        var properties: [OpaquePointer?] = [
            g_variant_new_dict_entry(
                g_variant_new_string("org.freedesktop.Secret.Item.Label"), g_variant_new_variant(g_variant_new_string(label))),
            g_variant_new_dict_entry(
                g_variant_new_string("org.freedesktop.Secret.Item.Attributes"),
                g_variant_new_variant(GLib.makeStringDictionaryVariant(attributes))),
        ]
        let propertyArray = properties.withUnsafeMutableBufferPointer {
            g_variant_new_array(propertyType, $0.baseAddress, gsize($0.count))
        }
        let value = Self.secretValue(secret, contentType: contentType)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        guard let encoded = secret_service_encode_dbus_secret(service.pointer, value) else {
            g_variant_unref(g_variant_ref_sink(propertyArray))
            throw .brokenSession(detail: "libsecret could not encode the secret for the session")
        }
        let reply = try callProvider(
            .createItem, path: collectionPath, interface: "org.freedesktop.Secret.Collection", method: "CreateItem",
            arguments: GVariantValues.tuple([propertyArray, encoded, g_variant_new_boolean(replacing ? 1 : 0)]),
            replyType: "(oo)")
        defer { g_variant_unref(reply) }
        let item = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(item) }
        let itemPath = GLib.string(of: item)
        if itemPath != "/" { return itemPath }
        let prompt = g_variant_get_child_value(reply, 1)!
        defer { g_variant_unref(prompt) }
        let result = try runPrompt(GLib.string(of: prompt), call: .createItem, startedAt: start)
        guard let result, GVariantValues.hasType(result, "o") else {
            result.map { g_variant_unref($0) }
            throw .keychain(.underlying(domain: "SecretKeychain", code: 0, message: "the provider's prompt gave no item path"))
        }
        defer { g_variant_unref(result) }
        return GLib.string(of: result)
    }

    /// Replaces the secret and the label of the existing item at `path` in place (`SetSecret`,
    /// then the `Label` property), keeping its attributes.
    func updateItem(at path: String, label: String, secret: Data, contentType: String) throws(SecretServiceFailure) {
        let item = try bounded(.updateItem) { cancellable, error in
            secret_item_new_for_dbus_path_sync(service.pointer, path, SECRET_ITEM_NONE, cancellable, error)
        }
        guard let item else {
            throw .keychain(.underlying(domain: "SecretKeychain", code: 0, message: "the provider returned no item at \(path)"))
        }
        defer { g_object_unref(item) }
        let value = Self.secretValue(secret, contentType: contentType)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        _ = try bounded(.updateItem) { cancellable, error in secret_item_set_secret_sync(item, value, cancellable, error) }
        _ = try bounded(.updateItem) { cancellable, error in secret_item_set_label_sync(item, label, cancellable, error) }
    }

    /// The program that owns `org.freedesktop.secrets` now, by its process name; `nil` when the
    /// bus does not say (another PID namespace, such as a sandbox, or a name owner gone meanwhile).
    func providerProgram() -> SecretServiceDiagnosis.Provider? {
        let bus = connection
        guard let owner = try? Self.busDaemonCall(bus, "GetNameOwner", [g_variant_new_string(Self.busName)], limit: limit),
              let pid = try? Self.busDaemonCall(bus, "GetConnectionUnixProcessID", [g_variant_new_string(owner)], limit: limit)
        else { return nil }
        return SecretServiceDiagnosis.Provider(processID: pid)
    }

    /// Asks the provider to unlock `paths` (it may show a prompt) and waits at most `limit`.
    ///
    /// - Returns: How many of `paths` are now unlocked.
    func unlock(_ paths: [String], limit: Duration) throws(SecretServiceFailure) -> Int {
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        let count = try GLib.withStringArray(paths) { array throws(SecretServiceFailure) in
            try bounded(.unlock, limit: limit) { cancellable, error in
                secret_service_unlock_dbus_paths_sync(service.pointer, array, cancellable, &unlocked, error)
            }
        }
        _ = GLib.takeStringArray(unlocked)
        return Int(max(count, 0))
    }

    /// The label, attributes and times of the item at `path`.
    func itemProperties(at path: String) throws(SecretServiceFailure) -> SecretItemProperties {
        let reply = try callProperties(
            .itemProperties, path: path, method: "GetAll", arguments: ["org.freedesktop.Secret.Item"],
            replyType: "(a{sv})")
        defer { g_variant_unref(reply) }
        let dictionary = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(dictionary) }

        func value(_ name: String, _ type: String) throws(SecretServiceFailure) -> OpaquePointer {
            guard let value = GLib.lookup(name, in: dictionary) else {
                throw .keychain(.corruptItem(path, reason: "the provider reports no \(name) property"))
            }
            guard GVariantValues.hasType(value, type) else {
                g_variant_unref(value)
                throw .keychain(.corruptItem(path, reason: "the \(name) property is not of type \(type)"))
            }
            return value
        }
        let label = try value("Label", "s")
        defer { g_variant_unref(label) }
        let attributes = try value("Attributes", "a{ss}")
        defer { g_variant_unref(attributes) }
        let created = try value("Created", "t")
        defer { g_variant_unref(created) }
        let modified = try value("Modified", "t")
        defer { g_variant_unref(modified) }
        return SecretItemProperties(
            path: path,
            label: GLib.string(of: label),
            attributes: GLib.stringDictionary(of: attributes),
            created: Date(timeIntervalSince1970: TimeInterval(g_variant_get_uint64(created))),
            modified: Date(timeIntervalSince1970: TimeInterval(g_variant_get_uint64(modified))))
    }

    /// Whether the collection at `path` is locked. Fails with "no such object" when it does not exist.
    func collectionIsLocked(_ path: String) throws(SecretServiceFailure) -> Bool {
        let reply = try callProperties(
            .collectionLocked, path: path, method: "Get", arguments: ["org.freedesktop.Secret.Collection", "Locked"],
            replyType: "(v)")
        defer { g_variant_unref(reply) }
        guard let locked = GVariantValues.property(in: reply, ofType: "b") else {
            throw .keychain(.underlying(
                domain: "SecretKeychain", code: 0, message: "the collection's Locked property is not a boolean"))
        }
        defer { g_variant_unref(locked) }
        return g_variant_get_boolean(locked) != 0
    }

    /// Calls a method of `org.freedesktop.DBus.Properties` on the provider's object at `path`.
    private func callProperties(
        _ call: SecretServiceCall, path: String, method: String, arguments: [String], replyType: String
    ) throws(SecretServiceFailure) -> OpaquePointer {
        try callProvider(
            call, path: path, interface: "org.freedesktop.DBus.Properties", method: method,
            arguments: GVariantValues.tuple(arguments.map { g_variant_new_string($0) }), replyType: replyType)
    }

    /// The bus connection libsecret's service talks over.
    var connection: OpaquePointer {
        g_dbus_proxy_get_connection(UnsafeMutableRawPointer(service.pointer).assumingMemoryBound(to: GDBusProxy.self))
    }

    /// Calls `method` of `interface` on the provider's object at `path` over libsecret's connection,
    /// bounded by `limit` (the client's by default), and returns its reply of `replyType`, which the
    /// caller releases with `g_variant_unref`. `arguments`, a floating tuple, is consumed.
    func callProvider(
        _ call: SecretServiceCall, path: String, interface: String, method: String, arguments: OpaquePointer?,
        replyType: String, limit: Duration? = nil
    ) throws(SecretServiceFailure) -> OpaquePointer {
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        // GDBus keeps its default time limit (longer than ours); the deadline's cancellable ends the call.
        let reply = try bounded(call, limit: limit) { cancellable, error in
            g_dbus_connection_call_sync(
                connection, Self.busName, path, interface, method, arguments, type, G_DBUS_CALL_FLAGS_NONE, -1,
                cancellable, error)
        }
        guard let reply else {
            throw .keychain(.underlying(domain: "SecretKeychain", code: 0, message: "D-Bus returned no reply to \(method)"))
        }
        return reply
    }

    /// A new `SecretValue` holding a copy of `secret`; the caller releases it with `secret_value_unref`.
    private static func secretValue(_ secret: Data, contentType: String) -> OpaquePointer {
        secret.isEmpty
            ? secret_value_new("", 0, contentType)
            : secret.withUnsafeBytes { bytes in
                secret_value_new(bytes.baseAddress!.assumingMemoryBound(to: gchar.self), gssize(bytes.count), contentType)
            }
    }

    /// A copy of libsecret's value: its bytes and content type.
    static func storedSecret(_ value: OpaquePointer) -> StoredSecret {
        var length: gsize = 0
        let bytes = secret_value_get(value, &length)
        let data = bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data()
        let contentType = secret_value_get_content_type(value).map { String(cString: $0) } ?? ""
        return StoredSecret(data: data, contentType: contentType)
    }
}
