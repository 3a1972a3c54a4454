import FoundationEssentials
import Logging

extension SecretServiceStore {
    /// One try at an operation: a connected client and the resolved collection.
    struct Attempt {
        let store: SecretServiceStore
        let client: SecretServiceClient
        let collectionPath: String

        private var logger: Logger { store.logger }

        /// Those of `paths` that are items of the collection.
        func inCollection(_ paths: [String]) -> [String] {
            paths.filter { $0.hasPrefix(collectionPath + "/") }
        }

        /// The unlocked items of the collection matching `attributes`, unlocking the collection
        /// first when it is locked (a locked collection may hide its items).
        func matchingItems(_ attributes: [String: String]) throws(SecretServiceFailure) -> [String] {
            let found = try client.search(attributes)
            let unlocked = inCollection(found.unlocked)
            if !unlocked.isEmpty { return unlocked }
            if inCollection(found.locked).isEmpty {
                guard try client.collectionIsLocked(collectionPath) else { return [] }
            }
            try unlockCollection()
            let again = try client.search(attributes)
            guard inCollection(again.locked).isEmpty else {
                throw .keychain(.locked(collection: store.configuration.collection.description))
            }
            return inCollection(again.unlocked)
        }

        /// Asks the provider to unlock the collection, or fails with `locked`.
        func unlockCollection() throws(SecretServiceFailure) {
            let collection = store.configuration.collection.description
            guard let limit = store.configuration.unlockTimeout else { throw .keychain(.locked(collection: collection)) }
            logger.info("The keyring collection is locked; asking the provider to unlock it", metadata: ["collection": "\(collection)"])
            guard try client.unlock([collectionPath], limit: limit) > 0 else {
                throw .keychain(.locked(collection: collection))
            }
        }

        /// The key the item at `path` holds, or `nil` when it is gone or is not one of ours.
        func key(ofItemAt path: String) throws(SecretServiceFailure) -> KeychainKey? {
            let attributes: [String: String]
            do throws(SecretServiceFailure) {
                attributes = try client.itemProperties(at: path).attributes
            } catch .glib(let error, _) where error.isNoSuchObject {
                return nil
            } catch .keychain(.corruptItem) {
                return nil
            }
            return try? SecretServiceSchema.key(from: attributes).get()
        }

        /// Of several items for one key, the one reads return: the newest.
        func newest(of paths: [String]) throws(SecretServiceFailure) -> String? {
            guard paths.count > 1 else { return paths.first }
            logger.warning("Found \(paths.count) items for one key; reading the newest", metadata: ["paths": "\(paths)"])
            return try properties(of: paths).min(by: SecretItemProperties.isNewer)?.path
        }

        /// The properties of each of `paths`, leaving out items deleted meanwhile.
        private func properties(of paths: [String]) throws(SecretServiceFailure) -> [SecretItemProperties] {
            var result: [SecretItemProperties] = []
            for path in paths {
                do throws(SecretServiceFailure) {
                    result.append(try client.itemProperties(at: path))
                } catch .glib(let error, _) where error.isNoSuchObject {
                    continue
                }
            }
            return result
        }

        /// The secret of the newest item matching `attributes`. An item deleted between the search
        /// and the read (another app signed out, or replaced it) makes it search again.
        func newestSecret(matching attributes: [String: String]) throws(SecretServiceFailure) -> StoredSecret? {
            for _ in 0..<Self.readTries {
                let paths = try matchingItems(attributes)
                if paths.count > 1 { store.noteDuplicates(of: attributes) }
                guard let path = try newest(of: paths) else { return nil }
                if let secret = try read(at: path, { path throws(SecretServiceFailure) in
                    try client.secret(at: path, sizeLimit: KeychainLimits.maximumSecretSize)
                }) {
                    return secret
                }
            }
            throw .keychain(.underlying(
                domain: "SecretKeychain", code: 0,
                message: "the item was deleted under \(Self.readTries) reads in a row by other apps; try again"))
        }

        /// How many times a read searches when the item it found keeps being deleted under it.
        private static let readTries = 5

        /// What `body` reads of the item at `path`, or `nil` when the item is gone. libsecret
        /// answers no value and no error for an item deleted since the search; KWallet answers
        /// `InvalidArgs` ("Can't find item at path"), gnome-keyring "no such object". No value
        /// for an item that still exists is KWallet 5's session bug: a ``SecretServiceFailure/brokenSession(detail:)``.
        private func read<Value>(
            at path: String, _ body: (String) throws(SecretServiceFailure) -> Value?
        ) throws(SecretServiceFailure) -> Value? {
            do throws(SecretServiceFailure) {
                if let value = try body(path) { return value }
            } catch .glib(let error, let call) where !error.isProviderGone && !error.isDBusTimeout && !error.isBrokenSession {
                guard try exists(path) else { return nil }
                throw .glib(error, call: call)
            }
            guard try exists(path) else { return nil }
            throw .brokenSession(detail: "the provider returned no secret for \(path), which exists")
        }

        /// Whether the provider still has an item at `path`.
        private func exists(_ path: String) throws(SecretServiceFailure) -> Bool {
            do throws(SecretServiceFailure) {
                _ = try client.itemProperties(at: path)
                return true
            } catch .glib(let error, _) where error.isNoSuchObject {
                return false
            }
        }

        /// Writes the item (replacing the one with the same attributes) and returns its path.
        ///
        /// KeePassXC answers a `CreateItem` that would replace another client's item with a prompt
        /// (its per-client access control) that nobody can answer headless, and one that would
        /// write into a locked database with its unlock prompt: there an existing item is updated
        /// in place (`SetSecret` and its label; or created anew when another app deleted it since
        /// the search), a new one is created without replacing (a
        /// duplicate another app made meanwhile is removed after the write, as for any provider),
        /// and a locked collection is unlocked first within the unlock time limit, or the write
        /// fails `locked`.
        func createItem(
            label: String, attributes: [String: String], secret: Data, contentType: String
        ) throws(SecretServiceFailure) -> String {
            var replacing = true
            if store.provider(using: client) == .keePassXC {
                if let existing = try newest(of: matchingItems(attributes)) {
                    do {
                        try client.updateItem(at: existing, label: label, secret: secret, contentType: contentType)
                        return existing
                    } catch .glib(let error, _) where error.isNoSuchObject {
                        // Deleted by another app since the search (a sign-out): written anew below.
                    }
                }
                if try client.collectionIsLocked(collectionPath) { try unlockCollection() }
                replacing = false
            }
            do {
                return try client.createItem(
                    in: collectionPath, label: label, attributes: attributes, secret: secret, contentType: contentType,
                    replacing: replacing)
            } catch .glib(let error, _) where error.isLocked {
                try unlockCollection()
                return try client.createItem(
                    in: collectionPath, label: label, attributes: attributes, secret: secret, contentType: contentType,
                    replacing: replacing)
            }
        }

        /// Deletes every other item with exactly these attributes (left by clients that stored
        /// without replacing). Never touches `kept`. A failure here is logged: the write succeeded.
        func removeDuplicates(of attributes: [String: String], keeping kept: String) {
            do {
                let duplicates = inCollection(try client.search(attributes).unlocked).filter { $0 != kept }
                guard !duplicates.isEmpty else { return }
                logger.warning("Removing \(duplicates.count) duplicate items for one key", metadata: ["kept": "\(kept)"])
                for path in duplicates { try deleteIfPresent(path) }
            } catch {
                logger.warning("Could not remove duplicate items; the next write tries again", metadata: ["error": "\(error)"])
            }
        }

        /// Deletes every item matching `attributes` and returns how many it deleted.
        func deleteAll(matching attributes: [String: String]) throws(SecretServiceFailure) -> Int {
            let paths = try matchingItems(attributes)
            for path in paths { try deleteIfPresent(path) }
            return paths.count
        }

        /// Deletes the item at `path`; an item that is gone, or goes while its deletion fails (another
        /// app deleted it first: KeePassXC then dismisses the second deletion's prompt), is deleted.
        private func deleteIfPresent(_ path: String) throws(SecretServiceFailure) {
            do {
                try client.deleteItem(at: path)
            } catch .glib(let error, _) where error.isNoSuchObject {
                return
            } catch {
                if case .expired = error { throw error }
                guard try exists(path) else { return }
                throw error
            }
        }

        /// One description per key (the newest item's), never a secret, and a description of each
        /// item that carries our schema but no valid key. Sizes come from reading one secret at a
        /// time and keeping only its length: a listing never holds more than one secret.
        func describeItems(matching attributes: [String: String]) throws(SecretServiceFailure) -> KeychainListing {
            var newestByKey: [KeychainKey: SecretItemProperties] = [:]
            var unrecognized: [UnrecognizedKeychainItem] = []
            for item in try properties(of: matchingItems(attributes)) {
                switch SecretServiceSchema.key(from: item.attributes) {
                case .success(let key):
                    if let current = newestByKey[key] {
                        store.noteDuplicates(of: SecretServiceSchema.attributes(for: key))
                        if !SecretItemProperties.isNewer(item, than: current) { continue }
                    }
                    newestByKey[key] = item
                case .failure(let error):
                    let reason: String
                    if case .corruptItem(_, let why) = error { reason = why } else { reason = error.description }
                    unrecognized.append(UnrecognizedKeychainItem(
                        identifier: item.path, label: item.label, attributes: item.attributes, reason: reason,
                        created: item.created, modified: item.modified))
                }
            }
            var items: [KeychainItemInfo] = []
            for (key, item) in newestByKey {
                // An item deleted since the search is left out.
                guard let size = try read(at: item.path, client.secretSize(at:)) else { continue }
                items.append(KeychainItemInfo(key: key, label: item.label, created: item.created, modified: item.modified, size: size))
            }
            return KeychainListing(
                items: items.sorted { KeychainKey.listingOrder($0.key, $1.key) },
                unrecognized: unrecognized.sorted { $0.identifier < $1.identifier })
        }
    }
}
