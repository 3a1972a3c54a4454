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
    /// An item was written (gnome-keyring announces a replaced item as created again): reads
    /// which key it now holds.
    func itemStored(at path: String) {
        preconditionOwnsContext()
        let key: KeychainKey?
        do throws(KeychainError) {
            key = try store.perform("Reading a changed item", writes: false) { attempt throws(SecretServiceFailure) in
                try attempt.key(ofItemAt: path)
            }
        } catch {
            logger.warning("Could not read a changed item; reporting its key as changed",
                           metadata: ["path": "\(path)", "error": "\(error)"])
            if let key = known[path] { report(KeychainChange(key: key, kind: .stored)) }
            return
        }
        guard let key, scope.contains(key) else {
            // Gone already (or no item of ours): forgotten, and reported removed if this process wrote it.
            forget(path)
            return
        }
        if let previous = known.updateValue(key, forKey: path), previous != key {
            report(change(of: previous))
        }
        // Seen before it is reported, so that a silent change after the reader's read is caught.
        if followsKeePassXC { digests[path] = digest(at: path) }
        report(KeychainChange(key: key, kind: .stored))
    }

    /// An item was deleted (or left the scope): reports its key removed, unless another item still holds it.
    /// An item not seen yet is reported too when this process wrote it: on KeePassXC, whose signals of a write
    /// are held (``itemChangedHold``), an item written here and deleted by another process at once is gone
    /// before it is read, and this process's app, which wrote it, must still hear that it went.
    func forget(_ path: String) {
        preconditionOwnsContext()
        digests[path] = nil
        // Once only: a deletion is announced several times (KeePassXC sends each signal three times).
        let written = forgotten.contains(path) ? nil : store.key(writtenAt: path).flatMap { scope.contains($0) ? $0 : nil }
        guard let key = known.removeValue(forKey: path) ?? written else { return }
        if forgotten.count >= SecretServiceStore.writtenItemsKept { forgotten.removeAll() }
        forgotten.insert(path)
        report(change(of: key))
    }

    private func change(of key: KeychainKey) -> KeychainChange {
        preconditionOwnsContext()
        return KeychainChange(key: key, kind: known.values.contains(key) ? .stored : .removed)
    }

    /// Lists the scope's items again and reports every key that may have changed since they were
    /// last seen: `stored` for each key there now, `removed` for each key gone.
    func listAgain() {
        preconditionOwnsContext()
        do throws(KeychainError) {
            let before = Set(known.values)
            known = try listItems()
            followKeePassXCsSilentChanges()
            let now = Set(known.values)
            for key in before.union(now).sorted(by: KeychainKey.listingOrder) {
                report(KeychainChange(key: key, kind: now.contains(key) ? .stored : .removed))
            }
        } catch {
            logger.warning("Could not list the watched items again; changes are reported as they come",
                           metadata: ["error": "\(error)"])
        }
    }

    /// The unlocked items of the scope in the collection, by path. Never unlocks.
    func listItems() throws(KeychainError) -> [String: KeychainKey] {
        let attributes = SecretServiceSchema.attributes(for: scope)
        return try store.perform("Listing the watched items", writes: false) { attempt throws(SecretServiceFailure) in
            var items: [String: KeychainKey] = [:]
            for path in attempt.inCollection(try attempt.client.search(attributes).unlocked) {
                if let key = try attempt.key(ofItemAt: path), scope.contains(key) { items[path] = key }
            }
            return items
        }
    }

    func report(_ change: KeychainChange) {
        logger.trace("Reporting a change", metadata: ["change": "\(change)"])
        observation?.deliver(change)
    }
}
