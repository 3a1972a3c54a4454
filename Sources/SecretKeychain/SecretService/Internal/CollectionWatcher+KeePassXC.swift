import CSecret
import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CollectionWatcher {
    /// How often the items followed on KeePassXC are re-checked. KeePassXC 2.7 saves its database
    /// on a worker thread while its event loop goes on serving D-Bus, with its change signals
    /// blocked for the whole save (`Database::writeDatabase`); a save follows every change and
    /// lasts as long as the database's key derivation (about a second by default). A secret
    /// replaced, an item created or an item deleted during a save is therefore announced by no
    /// signal at all. The re-check lists the scope's items and reads each followed item's secret,
    /// so such a change reaches the other apps within two intervals instead of never.
    static let keePassXCRecheckInterval = Duration.seconds(2)

    /// On KeePassXC, records a digest of every followed item and re-checks them every
    /// ``keePassXCRecheckInterval``; on any other provider, stops doing so.
    func followKeePassXCsSilentChanges() {
        preconditionOwnsContext()
        guard followsKeePassXC else {
            stopRecheck()
            digests = [:]
            return
        }
        digests = known.keys.reduce(into: [:]) { digests, path in digests[path] = digest(at: path) }
        guard recheckSource == 0 else { return }
        let source = g_timeout_source_new(Self.keePassXCRecheckInterval.timerMilliseconds)!
        defer { g_source_unref(source) }
        g_source_set_callback(
            source, { watcher in
                Unmanaged<CollectionWatcher>.fromOpaque(watcher!).takeUnretainedValue().recheckItems()
                return 1  // G_SOURCE_CONTINUE
            }, Unmanaged.passRetained(self).toOpaque(), { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() })
        recheckSource = g_source_attach(source, context)
    }

    /// Detaches the re-check's source (which releases the watcher it holds).
    func stopRecheck() {
        preconditionOwnsContext()
        guard recheckSource != 0 else { return }
        if let source = g_main_context_find_source_by_id(context, recheckSource) { g_source_destroy(source) }
        recheckSource = 0
    }

    /// Lists the scope's items and reads every followed item's secret: reports an item that came
    /// or went without a signal once two re-checks in a row have seen it so (a signal may still be
    /// on its way at the first), and the key of each whose secret changed since it was last seen.
    /// Skipped while signals wait to be handled or the collection is locked.
    private func recheckItems() {
        preconditionOwnsContext()
        guard pending.isEmpty, !collectionLocked else { return }
        recheckListing()
        for (path, key) in known.sorted(by: { KeychainKey.listingOrder($0.value, $1.value) }) {
            guard let now = digest(at: path) else { continue }
            let before = digests.updateValue(now, forKey: path)
            if let before, before != now {
                logger.debug("A changed secret that the provider did not announce", metadata: ["key": "\(key)"])
                report(KeychainChange(key: key, kind: .stored))
            }
        }
    }

    /// The listing half of ``recheckItems()``.
    private func recheckListing() {
        preconditionOwnsContext()
        let listed: Set<String>
        do throws(KeychainError) {
            let attributes = SecretServiceSchema.attributes(for: scope)
            listed = try store.perform("Re-checking the watched items", writes: false) { attempt throws(SecretServiceFailure) in
                let found = try attempt.client.search(attributes)
                // An item listed as locked is the collection locking: the CollectionChanged signal tells.
                guard attempt.inCollection(found.locked).isEmpty else { return nil }
                return Set(attempt.inCollection(found.unlocked))
            } ?? Set(known.keys)
        } catch {
            logger.debug("Could not list the watched items to re-check them", metadata: ["error": "\(error)"])
            return
        }
        let appeared = listed.subtracting(known.keys)
        let went = Set(known.keys).subtracting(listed)
        defer { unannounced = (appeared, went) }
        for path in appeared.intersection(unannounced.appeared).sorted() {
            logger.debug("An item that the provider did not announce", metadata: ["path": "\(path)"])
            itemStored(at: path)
        }
        let gone = went.intersection(unannounced.went)
        // KeePassXC lists no item of a locked database: believed only while it is unlocked.
        guard !gone.isEmpty, removalsAreBelieved() else { return }
        for path in gone.sorted() {
            logger.debug("A deletion that the provider did not announce", metadata: ["path": "\(path)"])
            forget(path)
        }
    }

    /// A digest of the item's secret, `nil` when it cannot be read (gone, locked, or the provider
    /// failed: the next re-check tries again).
    func digest(at path: String) -> Int? {
        do throws(KeychainError) {
            return try store.perform("Re-checking a watched item", writes: false) { attempt throws(SecretServiceFailure) in
                try attempt.client.secretDigest(at: path)
            }
        } catch {
            logger.debug("Could not re-check a watched item", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }
}
