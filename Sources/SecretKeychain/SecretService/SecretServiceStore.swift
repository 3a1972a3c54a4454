import CSecret
import Dispatch
import FoundationEssentials
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
/// store's own serial queue (``blockingQueue``), never on Swift's cooperative thread pool.
/// Observations (``observeChanges(in:_:)``) share one follower of the collection's D-Bus signals: one
/// thread and one bus connection for all of a store's observations, whatever their scopes.
public final class SecretServiceStore: KeychainStore {
    /// How this store reaches the Secret Service.
    public let configuration: Configuration

    /// The object path the configured alias resolved to, kept until the provider changes.
    private let resolvedCollection = Mutex<String?>(nil)
    /// libsecret's shared service with its session, kept until the provider goes away: connecting
    /// again for every operation would cost more than the operation's own D-Bus calls.
    private let connection = Mutex<SecretServiceClient?>(nil)
    /// The program serving the connection (see ``provider(using:)``), learnt once per connection.
    private let connectedProvider = Mutex<SecretServiceDiagnosis.Provider??>(nil)
    /// The attributes of keys a read or a listing found several items for (left by other clients
    /// that stored without replacing): the next write of such a key removes the others, also on a
    /// provider whose replacing writes leave no duplicates of their own (see ``setData(_:for:label:)``).
    private let keysWithDuplicates = Mutex<Set<[String: String]>>([])
    /// The items this store wrote last (path → key, at most ``writtenItemsKept``): how this process's
    /// observations learn the key of an item it wrote that was deleted before they could read it.
    private let writtenItems = Mutex<(keys: [String: KeychainKey], order: [String])>(([:], []))
    /// The serial queue the `async` methods run their blocking calls on, one at a time, never on
    /// Swift's cooperative thread pool.
    public let blockingQueue = DispatchQueue(label: "SecretKeychain.SecretServiceStore")
    /// The running observations, served by one watcher of the collection.
    private let observers = CollectionObservers()

    var logger: Logger { configuration.logger }

    /// Creates a store; nothing is contacted until the first call.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: KeychainStore

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try data(for: key, checkedBy: { _ in true })
    }

    /// On KWallet 5 (KDE bug 514194) a broken session can hand back another value with no error: a secret
    /// `isIntact` refuses is read again on a fresh session, up to four reads in all, the last one returned as it is
    /// (a record that is really corrupt is the caller's to report). Each read has its own tries for a session that
    /// fails outright, so a re-read never turns a corrupt record into `KeychainError.sessionFailed`.
    public func data(for key: KeychainKey, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) -> Data? {
        try key.validate()
        let attributes = SecretServiceSchema.attributes(for: key)
        func read() throws(KeychainError) -> StoredSecret? {
            do {
                return try perform("Reading \(key)", writes: false) { attempt throws(SecretServiceFailure) -> StoredSecret? in
                    try attempt.readSecret(matching: attributes)
                }
            } catch .oversizedItem(let path, let size, let limit) {
                throw .oversizedItem("\(key) (\(path))", size: size, limit: limit)
            }
        }
        var secret = try read()
        for reread in 1..<KeychainError.sessionTries {
            // Which provider answers is asked only here, for a secret that is not intact: a read costs no more call.
            guard let data = secret?.data, !isIntact(data),
                try perform("Reading \(key)", writes: false, { attempt throws(SecretServiceFailure) in provider(using: attempt.client) })
                    .garblesSecretsOnBrokenSessions
            else { break }
            logger.debug("The secret read does not decode; reading it again with a fresh session", metadata: ["key": "\(key)", "read": "\(reread)"])
            SecretServiceClient.disconnect()
            forgetConnection()
            secret = try read()
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
            noteWritten(key, at: written)
            // gnome-keyring and KWallet replace atomically: a search for duplicates after every
            // write would find none of ours, and doubled a write's calls. Others' duplicates are
            // removed once a read or a listing has found them.
            let replacesAtomically = [.gnomeKeyring, .kWallet].contains(provider(using: attempt.client))
            if !replacesAtomically || tookDuplicates(of: attributes) {
                attempt.removeDuplicates(of: attributes, keeping: written)
            }
        }
        logger.debug("Stored keychain item", metadata: ["key": "\(key)", "size": "\(data.count)"])
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String, checkedBy isIntact: (Data) -> Bool) throws(KeychainError) {
        try setData(data, for: key, label: label)
        for rewrite in 1..<KeychainError.sessionTries {
            // The provider is asked once per connection (cached): elsewhere a write costs no more call.
            guard try perform("Storing \(key)", writes: false, { attempt throws(SecretServiceFailure) in provider(using: attempt.client) })
                .garblesSecretsOnBrokenSessions,
                let stored = try self.data(for: key, checkedBy: isIntact), !isIntact(stored)
            else { return }
            logger.debug("The secret written reads back garbled; writing it again with a fresh session", metadata: ["key": "\(key)", "write": "\(rewrite)"])
            SecretServiceClient.disconnect()
            forgetConnection()
            try setData(data, for: key, label: label)
        }
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

    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        try observers.observe(in: scope, of: self, handler)
    }

    // MARK: Running operations

    /// Runs one operation against the provider. When the provider went away (it restarted, so
    /// libsecret's connection addresses a name nobody owns) it reconnects once and runs the
    /// operation again; likewise once when a cached alias resolution has gone stale. When the
    /// encrypted session fails (KWallet 5's bug, KDE bug 514194), it runs the operation again with a
    /// fresh session, up to ``KeychainError/sessionTries`` tries in all, each call within its own
    /// time limit. `writes` says whether the operation stores or removes, so that a time-out says
    /// whether its outcome is unknown.
    func perform<Result>(
        _ operation: String, writes: Bool, _ body: (Attempt) throws(SecretServiceFailure) -> Result
    ) throws(KeychainError) -> Result {
        // An invalid path must never reach GLib, which asserts instead of failing.
        if case .objectPath(let path) = configuration.collection, let reason = Collection.objectPathViolation(in: path) {
            throw .invalidCollectionPath(path, reason: reason)
        }
        var reconnected = false
        var reresolved = false
        var tries = 1
        while true {
            do {
                let client = try connectedClient()
                let collectionPath = try resolveCollection(using: client)
                return try body(Attempt(store: self, client: client, collectionPath: collectionPath))
            } catch .glib(let error, _) where error.isProviderGone && !reconnected {
                logger.debug("No answer from the Secret Service provider; reconnecting once", metadata: ["error": "\(error.message)"])
                SecretServiceClient.disconnect()
                forgetConnection()
                resolvedCollection.withLock { $0 = nil }
                reconnected = true
            } catch let failure where failure.isBrokenSession && tries < KeychainError.sessionTries {
                logger.debug("The Secret Service session failed; trying again with a fresh one",
                              metadata: ["error": "\(failure.detail)", "try": "\(tries)"])
                SecretServiceClient.disconnect()
                forgetConnection()
                tries += 1
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

    /// Drops the connection kept from earlier operations, and what was learnt about its provider.
    private func forgetConnection() {
        connection.withLock { $0 = nil }
        connectedProvider.withLock { $0 = nil }
    }

    /// The program serving `client`'s connection (KeePassXC needs writes of its own: see
    /// ``Attempt/createItem(label:attributes:secret:contentType:)``), asked of the bus once per
    /// connection; `nil` when the bus does not say.
    func provider(using client: SecretServiceClient) -> SecretServiceDiagnosis.Provider? {
        if let known = connectedProvider.withLock({ $0 }) { return known }
        let provider = client.providerProgram()
        connectedProvider.withLock { $0 = .some(provider) }
        return provider
    }

    /// How many written items ``key(writtenAt:)`` remembers.
    static let writtenItemsKept = 256

    private func noteWritten(_ key: KeychainKey, at path: String) {
        writtenItems.withLock { written in
            if written.keys.updateValue(key, forKey: path) == nil { written.order.append(path) }
            if written.order.count > Self.writtenItemsKept { written.keys[written.order.removeFirst()] = nil }
        }
    }

    /// The key of the item this store wrote at `path`, if it was among the last it wrote.
    func key(writtenAt path: String) -> KeychainKey? {
        writtenItems.withLock { $0.keys[path] }
    }

    /// Notes that a read or a listing found several items for the key of `attributes`.
    func noteDuplicates(of attributes: [String: String]) {
        keysWithDuplicates.withLock { _ = $0.insert(attributes) }
    }

    /// Whether a read or a listing found several items for the key of `attributes` since its last
    /// write; forgets it.
    private func tookDuplicates(of attributes: [String: String]) -> Bool {
        keysWithDuplicates.withLock { $0.remove(attributes) != nil }
    }

    /// The connection kept from an earlier operation, or a new one.
    private func connectedClient() throws(SecretServiceFailure) -> SecretServiceClient {
        if let client = connection.withLock({ $0 }) { return client }
        let client = try SecretServiceClient.connect(limit: configuration.timeout)
        connection.withLock { $0 = client }
        return client
    }

    /// Forgets where the alias pointed and which program served it (another provider took the
    /// name), so that the next operation learns both again.
    func forgetResolvedCollection() {
        resolvedCollection.withLock { $0 = nil }
        connectedProvider.withLock { $0 = nil }
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
        if failure.isBrokenSession {
            return .sessionFailed(operation: operation, detail: failure.detail, writes: writes)
        }
        switch failure {
        case .keychain(let error):
            return error
        case .brokenSession(let detail):
            return .sessionFailed(operation: operation, detail: detail, writes: writes)
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
