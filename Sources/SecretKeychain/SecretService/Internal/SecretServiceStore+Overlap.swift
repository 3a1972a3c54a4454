import Foundation
import Logging

extension SecretServiceStore.Attempt {
    /// Writes the item (replacing the one with the same attributes), then deletes every other item
    /// with exactly these attributes (left by clients that stored without replacing), the search
    /// for them sent with the write (``SecretServiceClient/createItemOverlappingSearch(in:label:attributes:secret:contentType:)``).
    ///
    /// A write that times out is not tried again: its outcome is unknown. Any other failure of the
    /// overlapped write (a locked collection, a provider that went away…) is handled by the
    /// one-call-at-a-time path, ``createItem(label:attributes:secret:contentType:)`` then
    /// ``removeDuplicates(of:keeping:)``, which unlocks, and fails as it always has.
    func storeReplacingDuplicates(
        label: String, attributes: [String: String], secret: Data, contentType: String
    ) throws(SecretServiceFailure) {
        let write: SecretServiceClient.OverlappedWrite
        do {
            write = try client.createItemOverlappingSearch(
                in: collectionPath, label: label, attributes: attributes, secret: secret, contentType: contentType)
        } catch .glib {
            let written = try createItem(label: label, attributes: attributes, secret: secret, contentType: contentType)
            removeDuplicates(of: attributes, keeping: written)
            return
        }
        do {
            let duplicates = inCollection(try write.found.get()).filter { $0 != write.written }
            guard !duplicates.isEmpty else { return }
            store.logger.warning(
                "Removing \(duplicates.count) duplicate items for one key", metadata: ["kept": "\(write.written)"])
            for path in duplicates {
                do throws(SecretServiceFailure) {
                    try client.deleteItem(at: path)
                } catch .glib(let error, _) where error.isNoSuchObject {
                    continue   // replaced under a new path by the write, or deleted meanwhile
                }
            }
        } catch {
            store.logger.warning(
                "Could not remove duplicate items; the next write tries again", metadata: ["error": "\(error)"])
        }
    }
}

extension SecretServiceStore.Attempt {
    /// The secret reads return for `attributes`: in the common case (one unlocked item, or none in
    /// an unlocked collection) from ``SecretServiceClient/searchAndReadSecret(matching:in:sizeLimit:)``,
    /// otherwise (several items, locked ones, an item deleted under the read, a failed call other
    /// than a time-out) from ``newestSecret(matching:)``, which unlocks, picks the newest and
    /// searches again as it always has.
    func readSecret(matching attributes: [String: String]) throws(SecretServiceFailure) -> StoredSecret? {
        let quick: SecretServiceClient.QuickRead
        do {
            quick = try client.searchAndReadSecret(
                matching: attributes, in: collectionPath, sizeLimit: KeychainLimits.maximumSecretSize)
        } catch .glib {
            return try newestSecret(matching: attributes)
        }
        switch quick {
        case .found(let secret):
            return secret
        case .nothing:
            // A locked collection may hide its items: only an unlocked one is known to hold none.
            guard try client.collectionIsLocked(collectionPath) else { return nil }
            return try newestSecret(matching: attributes)
        case .undecided:
            return try newestSecret(matching: attributes)
        }
    }
}
