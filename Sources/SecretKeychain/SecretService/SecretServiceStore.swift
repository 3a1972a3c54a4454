import CSecret
import Dispatch
import Foundation
import Logging
import Synchronization

/// A ``KeychainStore`` in the freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet),
/// through libsecret over D-Bus.
///
/// Items live in one collection (see ``Configuration``), with the attributes in
/// ``SecretServiceSchema``. Every D-Bus call is bounded by ``Configuration/timeout``; a locked
/// collection is unlocked through the provider's prompt within ``Configuration/unlockTimeout``
/// or the call fails with ``KeychainError/locked(collection:)``. When the provider restarts, the
/// next call reconnects by itself. The store never falls back to memory.
///
/// The synchronous methods block the calling thread on D-Bus. The `async` methods run them on the
/// store's own serial queue, never on Swift's cooperative thread pool. Observations
/// (``observeChanges(in:_:)``) each follow the collection's D-Bus signals on a thread of their own.
public final class SecretServiceStore: KeychainStore {
    /// How this store reaches the Secret Service.
    public let configuration: Configuration

    /// The object path the configured alias resolved to, kept until the provider changes.
    private let resolvedCollection = Mutex<String?>(nil)
    /// libsecret's shared service with its session, kept until the provider goes away: connecting
    /// again for every operation would cost more than the operation's own D-Bus calls.
    private let connection = Mutex<SecretServiceClient?>(nil)
    /// Where the `async` methods run their blocking calls.
    private let worker = DispatchQueue(label: "SecretKeychain.SecretServiceStore")

    private var logger: Logger { configuration.logger }

    /// Creates a store; nothing is contacted until the first call.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: KeychainStore

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try key.validate()
        let attributes = SecretServiceSchema.attributes(for: key)
        let secret: StoredSecret?
        do {
            secret = try perform("Reading \(key)", writes: false) { attempt throws(SecretServiceFailure) -> StoredSecret? in
                try attempt.newestSecret(matching: attributes)
            }
        } catch .oversizedItem(let path, let size, let limit) {
            throw .oversizedItem("\(key) (\(path))", size: size, limit: limit)
        }
        logger.debug("Read keychain item", metadata: ["key": "\(key)", "found": "\(secret != nil)"])
        return secret?.data
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try key.validate()
        try KeychainLimits.validate(secretSize: data.count)
        let attributes = SecretServiceSchema.attributes(for: key)
        let contentType = SecretServiceSchema.contentType(for: data)
        try perform("Storing \(key)", writes: true) { attempt throws(SecretServiceFailure) in
            let written = try attempt.createItem(label: label, attributes: attributes, secret: data, contentType: contentType)
            attempt.removeDuplicates(of: attributes, keeping: written)
        }
        logger.debug("Stored keychain item", metadata: ["key": "\(key)", "size": "\(data.count)"])
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try key.validate()
        let attributes = SecretServiceSchema.attributes(for: key)
        let removed = try perform("Removing \(key)", writes: true) { attempt throws(SecretServiceFailure) in
            try attempt.deleteAll(matching: attributes)
        }
        logger.debug("Removed keychain item", metadata: ["key": "\(key)", "removed": "\(removed)"])
        return removed > 0
    }

    public func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] {
        try listing(in: scope).items
    }

    public func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing {
        let attributes = SecretServiceSchema.attributes(for: scope)
        return try perform("Listing items", writes: false) { attempt throws(SecretServiceFailure) in
            try attempt.describeItems(matching: attributes)
        }
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) throws(KeychainError) -> Int {
        let attributes = SecretServiceSchema.attributes(for: .group(group))
        return try perform("Removing the items of group \(group)", writes: true) { attempt throws(SecretServiceFailure) in
            try attempt.deleteAll(matching: attributes)
        }
    }

    public func data(for key: KeychainKey) async throws(KeychainError) -> Data? {
        try await offload { () throws(KeychainError) in try self.data(for: key) }
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) async throws(KeychainError) {
        try await offload { () throws(KeychainError) in try self.setData(data, for: key, label: label) }
    }

    @discardableResult
    public func removeData(for key: KeychainKey) async throws(KeychainError) -> Bool {
        try await offload { () throws(KeychainError) in try self.removeData(for: key) }
    }

    public func items(in scope: KeychainScope) async throws(KeychainError) -> [KeychainItemInfo] {
        try await offload { () throws(KeychainError) in try self.items(in: scope) }
    }

    public func listing(in scope: KeychainScope) async throws(KeychainError) -> KeychainListing {
        try await offload { () throws(KeychainError) in try self.listing(in: scope) }
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) async throws(KeychainError) -> Int {
        try await offload { () throws(KeychainError) in try self.removeAll(in: group) }
    }

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let started = DispatchSemaphore(value: 0)
        let result = Mutex<Swift.Result<KeychainObservation, KeychainError>?>(nil)
        startObserving(scope, handler) { outcome in
            result.withLock { $0 = outcome }
            started.signal()
        }
        started.wait()
        return try result.withLock { $0! }.get()
    }

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) async throws(KeychainError) -> KeychainObservation {
        let result: Swift.Result<KeychainObservation, KeychainError> = await withCheckedContinuation { continuation in
            startObserving(scope, handler) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Starts a ``CollectionWatcher``; `started` is called from its thread once it follows the collection.
    private func startObserving(
        _ scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void,
        started: @escaping @Sendable (Swift.Result<KeychainObservation, KeychainError>) -> Void
    ) {
        let observation = KeychainObservation(handler: handler)
        let watcher = CollectionWatcher(store: self, scope: scope, observation: observation)
        watcher.start { outcome in
            switch outcome {
            case .success:
                observation.whenCancelled { watcher.stop() }
                started(.success(observation))
            case .failure(let error):
                watcher.stop()
                started(.failure(error))
            }
        }
    }

    // MARK: Running operations

    /// Runs a blocking call on ``worker`` and resumes the caller when it is done.
    private func offload<Result: Sendable>(
        _ body: @escaping @Sendable () throws(KeychainError) -> Result
    ) async throws(KeychainError) -> Result {
        let result: Swift.Result<Result, KeychainError> = await withCheckedContinuation { continuation in
            worker.async { continuation.resume(returning: Swift.Result(catching: body)) }
        }
        return try result.get()
    }

    /// Runs one operation against the provider. When the provider went away (it restarted, so
    /// libsecret's connection addresses a name nobody owns) it reconnects once and runs the
    /// operation again; likewise once when a cached alias resolution has gone stale. `writes` says
    /// whether the operation stores or removes, so that a time-out says whether its outcome is unknown.
    func perform<Result>(
        _ operation: String, writes: Bool, _ body: (Attempt) throws(SecretServiceFailure) -> Result
    ) throws(KeychainError) -> Result {
        // An invalid path must never reach GLib, which asserts instead of failing.
        if case .objectPath(let path) = configuration.collection, let reason = Collection.objectPathViolation(in: path) {
            throw .invalidCollectionPath(path, reason: reason)
        }
        var reconnected = false
        var reresolved = false
        while true {
            do {
                let client = try connectedClient()
                let collectionPath = try resolveCollection(using: client)
                return try body(Attempt(store: self, client: client, collectionPath: collectionPath))
            } catch .glib(let error, _) where error.isProviderGone && !reconnected {
                logger.debug("No answer from the Secret Service provider; reconnecting once", metadata: ["error": "\(error.message)"])
                SecretServiceClient.disconnect()
                connection.withLock { $0 = nil }
                resolvedCollection.withLock { $0 = nil }
                reconnected = true
            } catch .glib(let error, let call)
                where error.isNoSuchObject && call.addressesCollection && !reresolved && isAlias {
                logger.debug("The collection alias points elsewhere now; resolving it again")
                resolvedCollection.withLock { $0 = nil }
                reresolved = true
            } catch {
                throw keychainError(for: error, operation: operation, writes: writes)
            }
        }
    }

    /// The connection kept from an earlier operation, or a new one.
    private func connectedClient() throws(SecretServiceFailure) -> SecretServiceClient {
        if let client = connection.withLock({ $0 }) { return client }
        let client = try SecretServiceClient.connect(limit: configuration.timeout)
        connection.withLock { $0 = client }
        return client
    }

    /// Forgets where the alias pointed, so that the next operation resolves it again.
    func forgetResolvedCollection() {
        resolvedCollection.withLock { $0 = nil }
    }

    private var isAlias: Bool {
        if case .objectPath = configuration.collection { return false }
        return true
    }

    /// The object path of the configured collection. Never creates one.
    private func resolveCollection(using client: SecretServiceClient) throws(SecretServiceFailure) -> String {
        let alias: String
        switch configuration.collection {
        case .objectPath(let path): return path
        case .defaultAlias: alias = "default"
        case .sessionAlias: alias = "session"
        }
        if let cached = resolvedCollection.withLock({ $0 }) { return cached }
        guard let path = try client.readAlias(alias) else {
            throw .keychain(.noSuchCollection(
                configuration.collection.description, detail: "the \(alias) alias points to no collection"))
        }
        resolvedCollection.withLock { $0 = path }
        return path
    }

    /// The one place a failure becomes the error the user sees.
    func keychainError(for failure: SecretServiceFailure, operation: String, writes: Bool) -> KeychainError {
        let collection = configuration.collection.description
        switch failure {
        case .keychain(let error):
            return error
        case .expired(.unlock, _):
            return .locked(collection: collection)
        case .expired(let call, let limit):
            return .timedOut(operation: "\(operation) (\(call.rawValue))", limit: limit, writes: writes)
        case .glib(let error, let call):
            if error.isProviderGone { return .noProvider(detail: error.message) }
            if error.isDBusTimeout {
                return .timedOut(operation: "\(operation) (\(call.rawValue))", limit: configuration.timeout, writes: writes)
            }
            if error.isLocked { return .locked(collection: collection) }
            if error.isNoSuchObject && call.addressesCollection {
                return .noSuchCollection(collection, detail: error.message)
            }
            return error.underlying
        }
    }
}

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
        private func newest(of paths: [String]) throws(SecretServiceFailure) -> String? {
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
                guard let path = try newest(of: matchingItems(attributes)) else { return nil }
                do throws(SecretServiceFailure) {
                    if let secret = try client.secret(at: path, sizeLimit: KeychainLimits.maximumSecretSize) { return secret }
                    // libsecret answers no secret and no error for an item deleted since the search.
                    _ = try client.itemProperties(at: path)
                    throw .keychain(.corruptItem(path, reason: "the provider returned no secret for it"))
                } catch .glib(let error, _) where error.isNoSuchObject {
                    continue
                }
            }
            throw .keychain(.underlying(
                domain: "SecretKeychain", code: 0,
                message: "the item was deleted under \(Self.readTries) reads in a row by other apps; try again"))
        }

        /// How many times a read searches when the item it found keeps being deleted under it.
        private static let readTries = 5

        /// Writes the item (replacing the one with the same attributes) and returns its path.
        func createItem(
            label: String, attributes: [String: String], secret: Data, contentType: String
        ) throws(SecretServiceFailure) -> String {
            do {
                return try client.createItem(
                    in: collectionPath, label: label, attributes: attributes, secret: secret, contentType: contentType)
            } catch .glib(let error, _) where error.isLocked {
                try unlockCollection()
                return try client.createItem(
                    in: collectionPath, label: label, attributes: attributes, secret: secret, contentType: contentType)
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

        private func deleteIfPresent(_ path: String) throws(SecretServiceFailure) {
            do {
                try client.deleteItem(at: path)
            } catch .glib(let error, _) where error.isNoSuchObject {
                return
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
                    if let current = newestByKey[key], !SecretItemProperties.isNewer(item, than: current) { continue }
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
                guard let size = try client.secretSize(at: item.path) else { continue }
                items.append(KeychainItemInfo(key: key, label: item.label, created: item.created, modified: item.modified, size: size))
            }
            return KeychainListing(
                items: items.sorted { KeychainKey.listingOrder($0.key, $1.key) },
                unrecognized: unrecognized.sorted { $0.identifier < $1.identifier })
        }
    }
}
