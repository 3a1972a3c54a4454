import CSecret
import Foundation
import SecretKeychain
import SystemSupport

/// Another client of the Secret Service, for tests: it makes and inspects items the way other
/// programs do (libsecret's item API and plain GDBus), independently of `SecretServiceStore`.
package enum RawSecretService {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// What the Secret Service holds for one item.
    package struct RawItem: Sendable {
        package var path: String
        package var label: String
        package var attributes: [String: String]
        package var secret: Data
        package var contentType: String
    }

    private static func check(_ error: UnsafeMutablePointer<GError>?, _ what: String) throws {
        guard let error else { return }
        defer { g_error_free(error) }
        throw Failure(description: "\(what): \(String(cString: error.pointee.message))")
    }

    /// A connection of its own (not libsecret's shared one), so that this client never depends on
    /// the store's handling of provider restarts.
    private static func service() throws -> UnsafeMutablePointer<SecretService> {
        var error: UnsafeMutablePointer<GError>?
        let service = secret_service_open_sync(secret_service_get_type(), nil, SECRET_SERVICE_OPEN_SESSION, nil, &error)
        try check(error, "connecting to the Secret Service")
        return service!
    }

    private static func attributeTable(_ attributes: [String: String]) -> OpaquePointer {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        for (name, value) in attributes { g_hash_table_insert(table, g_strdup(name), g_strdup(value)) }
        return table
    }

    /// Runs `body` again, at most twice, when it fails with KWallet's session bug (KDE bug 514194,
    /// every KF5 kwalletd: about 1 % of encrypted sessions fail with "Can't find session" or
    /// "Client public key size is invalid"); each try opens a new session. The store retries those
    /// itself; this client stands for another program and must not make a test flaky.
    private static func retryingKWalletSessionBug<Result>(_ body: () throws -> Result) throws -> Result {
        var tries = 0
        while true {
            do {
                return try body()
            } catch let failure as Failure where tries < 2
                && ProviderQuirk.kwalletSessionBugMessages.contains(where: failure.description.contains) {
                tries += 1
            }
        }
    }

    /// Creates an item in the default collection **without** replacing one with the same
    /// attributes, as some clients do, and returns its path.
    @discardableResult
    package static func createWithoutReplacing(attributes: [String: String], label: String, secret: String) throws -> String {
        let path = try retryingKWalletSessionBug { try createOnce(attributes: attributes, label: label, secret: secret) }
        // KWallet's session bug can also leave another secret (or none) with no error: read back, and set it again.
        for _ in 0..<2 where try items(matching: attributes).first(where: { $0.path == path })?.secret != Data(secret.utf8) {
            try setSecret(secret, at: path)
        }
        return path
    }

    private static func createOnce(attributes: [String: String], label: String, secret: String) throws -> String {
        let service = try service()
        defer { g_object_unref(service) }
        var error: UnsafeMutablePointer<GError>?
        let collection = secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, nil, &error)
        try check(error, "opening the default collection")
        defer { g_object_unref(collection) }
        let table = attributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let value = secret_value_new(secret, -1, "text/plain")
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let item = secret_item_create_sync(collection, nil, table, label, value, SECRET_ITEM_CREATE_NONE, nil, &error)
        try check(error, "creating an item")
        defer { g_object_unref(item) }
        return objectPath(of: item!)
    }

    /// Replaces the secret of the item at `path` (which makes it the most recently modified).
    package static func setSecret(_ secret: String, at path: String) throws {
        try retryingKWalletSessionBug { try setSecretOnce(secret, at: path) }
    }

    private static func setSecretOnce(_ secret: String, at path: String) throws {
        let service = try service()
        defer { g_object_unref(service) }
        let item = try item(at: path, in: service)
        defer { g_object_unref(item) }
        let value = secret_value_new(secret, -1, "text/plain")
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var error: UnsafeMutablePointer<GError>?
        let cancellable = try cancelledAfterTenSeconds()
        defer { g_object_unref(cancellable) }
        secret_item_set_secret_sync(item, value, cancellable, &error)
        try check(error, "setting a secret")
    }

    /// A cancellable that cancels itself after ten seconds, so that no helper call can hang a test.
    private static func cancelledAfterTenSeconds() throws -> UnsafeMutablePointer<GCancellable> {
        let cancellable = g_cancellable_new()!
        g_object_ref(cancellable)
        do {
            _ = try DeadlineTimer.shared.schedule(after: .seconds(10)) { [cancellable = UInt(bitPattern: cancellable)] in
                let pointer = UnsafeMutablePointer<GCancellable>(bitPattern: cancellable)!
                g_cancellable_cancel(pointer)
                g_object_unref(pointer)
            }
        } catch {
            g_object_unref(cancellable)
            g_object_unref(cancellable)
            throw error
        }
        return cancellable
    }

    /// Every item in any collection whose attributes include `attributes`, with its secret.
    package static func items(matching attributes: [String: String]) throws -> [RawItem] {
        // KWallet's session bug can also hand back an empty secret with no error: a read that finds one is made
        // again on new sessions (an item that is really empty reads empty each time).
        var items = try retryingKWalletSessionBug { try itemsOnce(matching: attributes) }
        for _ in 0..<2 where items.contains(where: { $0.secret.isEmpty }) {
            items = try retryingKWalletSessionBug { try itemsOnce(matching: attributes) }
        }
        return items
    }

    private static func itemsOnce(matching attributes: [String: String]) throws -> [RawItem] {
        let service = try service()
        defer { g_object_unref(service) }
        let table = attributeTable(attributes)
        defer { g_hash_table_unref(table) }
        var error: UnsafeMutablePointer<GError>?
        let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | SECRET_SEARCH_LOAD_SECRETS.rawValue)
        let list = secret_service_search_sync(service, nil, table, flags, nil, &error)
        try check(error, "searching items")
        defer { g_list_free_full(list, g_object_unref) }
        var items: [RawItem] = []
        var node = list
        while let current = node {
            let item = current.pointee.data.assumingMemoryBound(to: SecretItem.self)
            items.append(rawItem(item))
            node = current.pointee.next
        }
        return items.sorted { $0.path < $1.path }
    }

    private static func item(at path: String, in service: UnsafeMutablePointer<SecretService>) throws -> UnsafeMutablePointer<SecretItem> {
        var error: UnsafeMutablePointer<GError>?
        let item = secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_LOAD_SECRET, nil, &error)
        try check(error, "loading item \(path)")
        return item!
    }

    private static func objectPath(of item: UnsafeMutablePointer<SecretItem>) -> String {
        String(cString: g_dbus_proxy_get_object_path(UnsafeMutableRawPointer(item).assumingMemoryBound(to: GDBusProxy.self)))
    }

    private static func rawItem(_ item: UnsafeMutablePointer<SecretItem>) -> RawItem {
        let label = secret_item_get_label(item)
        defer { g_free(label) }
        let table = secret_item_get_attributes(item)
        defer { g_hash_table_unref(table) }
        var attributes: [String: String] = [:]
        let keys = g_hash_table_get_keys(table)
        defer { g_list_free(keys) }
        var node = keys
        while let current = node {
            let name = current.pointee.data.assumingMemoryBound(to: gchar.self)
            let value = g_hash_table_lookup(table, name).assumingMemoryBound(to: gchar.self)
            attributes[String(cString: name)] = String(cString: value)
            node = current.pointee.next
        }
        var secret = Data()
        var contentType = ""
        if let value = secret_item_get_secret(item) {
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            var length: gsize = 0
            if let bytes = secret_value_get(value, &length) { secret = Data(bytes: bytes, count: Int(length)) }
            contentType = String(cString: secret_value_get_content_type(value))
        }
        return RawItem(
            path: objectPath(of: item), label: label.map { String(cString: $0) } ?? "", attributes: attributes,
            secret: secret, contentType: contentType)
    }

    /// Unlocks `collection` with its password through gnome-keyring's prompt-less interface: a
    /// `plain` session opened and used on one connection (a one-shot `gdbus call` cannot do it).
    package static func unlockWithMasterPassword(collection: String, password: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error)
        try check(error, "connecting to the session bus")
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }

        var sessionArguments: [OpaquePointer?] = [g_variant_new_string("plain"), g_variant_new_variant(g_variant_new_string(""))]
        let opened = sessionArguments.withUnsafeMutableBufferPointer { arguments in
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service",
                "OpenSession", g_variant_new_tuple(arguments.baseAddress, 2), nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        }
        try check(error, "opening a plain session")
        defer { g_variant_unref(opened) }
        let sessionPath = g_variant_get_child_value(opened, 1)!
        defer { g_variant_unref(sessionPath) }

        let byteType = g_variant_type_new("y")
        defer { g_variant_type_free(byteType) }
        let passwordBytes = Array(password.utf8)
        let passwordVariant = passwordBytes.withUnsafeBytes {
            g_variant_new_fixed_array(byteType, $0.baseAddress, gsize($0.count), 1)
        }
        var secretFields: [OpaquePointer?] = [
            g_variant_new_object_path(g_variant_get_string(sessionPath, nil)),
            g_variant_new_fixed_array(byteType, nil, 0, 1),
            passwordVariant,
            g_variant_new_string("text/plain"),
        ]
        let secretStruct = secretFields.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 4) }
        var unlockArguments: [OpaquePointer?] = [g_variant_new_object_path(collection), secretStruct]
        let reply = unlockArguments.withUnsafeMutableBufferPointer { arguments in
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "UnlockWithMasterPassword",
                g_variant_new_tuple(arguments.baseAddress, 2), nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        }
        try check(error, "unlocking \(collection)")
        if let reply { g_variant_unref(reply) }
    }
}
