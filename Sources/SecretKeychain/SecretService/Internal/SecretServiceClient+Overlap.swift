import SystemSupport
import CSecret
import FoundationEssentials

/// The search's answer, a `GAsyncResult` with a reference of its own. Only touched on the thread that iterates the
/// call's main context.
private final class PendingAnswers {
    var search: UnsafeMutableRawPointer?
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

    /// The common read in one go: the search, answered in a main context of this call's own, then
    /// (when it finds exactly one unlocked item of `collectionPath`) that item's secret
    /// (``secretValue(at:limit:)``), both within ``limit``, as libsecret's own lookup chains them.
    ///
    /// - Throws: A failure of either call; ``KeychainError/oversizedItem(_:size:limit:)`` (as
    ///   `.keychain`) for a secret over `sizeLimit` bytes.
    func searchAndReadSecret(
        matching attributes: [String: String], in collectionPath: String, sizeLimit: Int
    ) throws(SecretServiceFailure) -> QuickRead {
        let start = ContinuousClock.now
        let table = GLib.makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let context: OpaquePointer
        do throws(KeychainError) { context = try MainContexts.forKeychain() } catch { throw .keychain(error) }
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let deadline: CallDeadline
        do throws(KeychainError) { deadline = try CallDeadline(limit: limit) } catch { throw .keychain(error) }
        defer { withExtendedLifetime(deadline) {} }  // the cancellable lives until the search has returned
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

        // The secret, read within what the search left of the limit.
        let value: OpaquePointer?
        do {
            value = try secretValue(at: found[0], limit: max(.zero, limit - (ContinuousClock.now - start)))
        } catch .glib(let error, _) where error.isNoSuchObject {
            return .undecided
        }
        // libsecret answers no secret and no error for an item deleted since the search.
        guard let value else { return .undecided }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        _ = secret_value_get(value, &length)
        guard Int(length) <= sizeLimit else { throw .keychain(.oversizedItem(found[0], size: Int(length), limit: sizeLimit)) }
        return .found(Self.storedSecret(value))
    }
}
