import CSecret
import Foundation

extension SecretServiceClient {
    /// What ``createItemOverlappingSearch(in:label:attributes:secret:contentType:)`` returns: the
    /// path of the item written, and the search's unlocked items or why it failed.
    struct OverlappedWrite {
        let written: String
        let found: Result<[String], SecretServiceFailure>
    }

    /// Stores an item in `collectionPath` (replacing the item with the same attributes) and
    /// searches for the items with `attributes`, both calls sent before either answer is awaited,
    /// so that the search costs no round trip of its own. Both are bounded by one deadline of ``limit``.
    ///
    /// Whichever order the provider ran them in, the items found other than the one written are the
    /// duplicates to delete (a replaced item keeps its path, and an item the write replaced under a
    /// new path is gone, which deleting tolerates).
    ///
    /// - Throws: The write's failure; the search's is returned in ``OverlappedWrite/found``.
    func createItemOverlappingSearch(
        in collectionPath: String, label: String, attributes: [String: String], secret: Data, contentType: String
    ) throws(SecretServiceFailure) -> OverlappedWrite {
        let table = GLib.makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free) { g_variant_unref(OpaquePointer($0)) }
        defer { g_hash_table_unref(properties) }
        g_hash_table_insert(
            properties, g_strdup("org.freedesktop.Secret.Item.Label"),
            UnsafeMutableRawPointer(g_variant_ref_sink(g_variant_new_string(label))))
        g_hash_table_insert(
            properties, g_strdup("org.freedesktop.Secret.Item.Attributes"),
            UnsafeMutableRawPointer(g_variant_ref_sink(GLib.makeStringDictionaryVariant(attributes))))
        let value = secret.isEmpty
            ? secret_value_new("", 0, contentType)
            : secret.withUnsafeBytes { bytes in
                secret_value_new(bytes.baseAddress!.assumingMemoryBound(to: gchar.self), gssize(bytes.count), contentType)
            }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }

        // The answers are dispatched to a main context of this call's own, as libsecret's `_sync`
        // calls do, one context for both. The deadline's cancellable ends both calls.
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let deadline = CallDeadline(limit: limit)
        let answers = Unmanaged.passRetained(PendingAnswers())
        defer { answers.release() }
        // The write first: the provider handles messages in order, so the item changes (and other apps
        // are told) before the search runs, and this call returns after both, as when they were made
        // one after the other; only the round trip between them is saved.
        secret_service_create_item_dbus_path(
            service.pointer, collectionPath, properties, value, SECRET_ITEM_CREATE_REPLACE, deadline.cancellable,
            { _, result, pending in
                Unmanaged<PendingAnswers>.fromOpaque(pending!).takeUnretainedValue().create = g_object_ref(UnsafeMutableRawPointer(result))
            },
            answers.toOpaque())
        secret_service_search_for_dbus_paths(
            service.pointer, nil, table, deadline.cancellable,
            { _, result, pending in
                Unmanaged<PendingAnswers>.fromOpaque(pending!).takeUnretainedValue().search = g_object_ref(UnsafeMutableRawPointer(result))
            },
            answers.toOpaque())
        let pending = answers.takeUnretainedValue()
        // Both callbacks run on this thread, in this loop; the cancellable makes both come by the deadline.
        while pending.search == nil || pending.create == nil {
            g_main_context_iteration(context, 1)
        }
        defer {
            g_object_unref(pending.search)
            g_object_unref(pending.create)
        }

        func failure(_ error: GLibError, _ call: SecretServiceCall) -> SecretServiceFailure {
            error.isCancelled && deadline.hasExpired ? .expired(call: call, limit: limit) : .glib(error, call: call)
        }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        let found: Result<[String], SecretServiceFailure>
        do {
            _ = try GLib.withError { error in
                secret_service_search_for_dbus_paths_finish(
                    service.pointer, OpaquePointer(pending.search), &unlocked, &locked, error)
            }
            found = .success(GLib.takeStringArray(unlocked))
        } catch {
            found = .failure(failure(error, .search))
        }
        _ = GLib.takeStringArray(locked)

        let path: UnsafeMutablePointer<gchar>?
        do {
            path = try GLib.withError { error in
                secret_service_create_item_dbus_path_finish(service.pointer, OpaquePointer(pending.create), error)
            }
        } catch {
            throw failure(error, .createItem)
        }
        guard let path else {
            throw .keychain(.underlying(domain: "SecretKeychain", code: 0, message: "the provider returned no item path"))
        }
        defer { g_free(path) }
        return OverlappedWrite(written: String(cString: path), found: found)
    }
}

/// The answers of the calls made together (a search, and a write or a secret's read), each a
/// `GAsyncResult` with a reference of its own. Only touched on the thread that iterates the call's
/// main context.
private final class PendingAnswers {
    var search: UnsafeMutableRawPointer?
    /// The write's answer, or the secret read's.
    var create: UnsafeMutableRawPointer?
}

extension SecretServiceClient {
    /// What ``searchAndReadSecret(matching:in:sizeLimit:)`` found.
    enum QuickRead {
        /// The secret of the one unlocked item of the collection with these attributes.
        case found(StoredSecret)
        /// No item of the collection has these attributes, locked or not.
        case nothing
        /// Anything else (several items, locked ones, an item deleted since the search): the
        /// caller reads the general way.
        case undecided
    }

    /// The common read in one go: the search, then (when it finds exactly one unlocked item of
    /// `collectionPath`) that item's secret, both answered in one main context of this call's own
    /// and bounded by one deadline of ``limit``, as libsecret's own lookup chains them.
    ///
    /// - Throws: A failure of either call; ``KeychainError/oversizedItem(_:size:limit:)`` (as
    ///   `.keychain`) for a secret over `sizeLimit` bytes.
    func searchAndReadSecret(
        matching attributes: [String: String], in collectionPath: String, sizeLimit: Int
    ) throws(SecretServiceFailure) -> QuickRead {
        let table = GLib.makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let deadline = CallDeadline(limit: limit)
        func failure(_ error: GLibError, _ call: SecretServiceCall) -> SecretServiceFailure {
            error.isCancelled && deadline.hasExpired ? .expired(call: call, limit: limit) : .glib(error, call: call)
        }
        let answer = Unmanaged.passRetained(PendingAnswers())
        defer { answer.release() }
        let pending = answer.takeUnretainedValue()

        secret_service_search_for_dbus_paths(
            service.pointer, nil, table, deadline.cancellable,
            { _, result, pending in
                Unmanaged<PendingAnswers>.fromOpaque(pending!).takeUnretainedValue().search = g_object_ref(UnsafeMutableRawPointer(result))
            },
            answer.toOpaque())
        while pending.search == nil { g_main_context_iteration(context, 1) }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        do {
            defer { g_object_unref(pending.search) }
            _ = try GLib.withError { error in
                secret_service_search_for_dbus_paths_finish(
                    service.pointer, OpaquePointer(pending.search), &unlocked, &locked, error)
            }
        } catch {
            throw failure(error, .search)
        }
        let prefix = collectionPath + "/"
        let found = GLib.takeStringArray(unlocked).filter { $0.hasPrefix(prefix) }
        let foundLocked = GLib.takeStringArray(locked).filter { $0.hasPrefix(prefix) }
        guard found.count == 1, foundLocked.isEmpty else { return found.isEmpty && foundLocked.isEmpty ? .nothing : .undecided }

        secret_service_get_secret_for_dbus_path(
            service.pointer, found[0], deadline.cancellable,
            { _, result, pending in
                Unmanaged<PendingAnswers>.fromOpaque(pending!).takeUnretainedValue().create = g_object_ref(UnsafeMutableRawPointer(result))
            },
            answer.toOpaque())
        while pending.create == nil { g_main_context_iteration(context, 1) }
        defer { g_object_unref(pending.create) }
        let value: OpaquePointer?
        do {
            value = try GLib.withError { error in
                secret_service_get_secret_for_dbus_path_finish(service.pointer, OpaquePointer(pending.create), error)
            }
        } catch where error.isNoSuchObject {
            return .undecided
        } catch {
            throw failure(error, .getSecret)
        }
        // libsecret answers no secret and no error for an item deleted since the search.
        guard let value else { return .undecided }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        let bytes = secret_value_get(value, &length)
        guard Int(length) <= sizeLimit else { throw .keychain(.oversizedItem(found[0], size: Int(length), limit: sizeLimit)) }
        let data = bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data()
        let contentType = secret_value_get_content_type(value).map { String(cString: $0) } ?? ""
        return .found(StoredSecret(data: data, contentType: contentType))
    }
}
