import FoundationEssentials
import Logging

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
