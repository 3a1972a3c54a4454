import CSecret
import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import SystemSupport

/// A ``KeychainStore`` for a sandboxed app's own items: libsecret's file keyring, whose key the desktop's
/// Secret portal (`org.freedesktop.portal.Secret`) keeps for the app. An app needs no permission for it.
///
/// This is what libsecret's password API (`secret_password_*`) uses inside a Flatpak or Snap sandbox whose
/// session has a Secret portal backend (gnome-keyring's; KWallet's from its 6.x portal): the items live in
/// `$XDG_DATA_HOME/keyrings/default.keyring` (in a Flatpak, `~/.var/app/APP-ID/data/keyrings/`), encrypted
/// with a secret the portal hands this app alone. Nothing of them is in the session's Secret Service, and
/// no other app can read them.
///
/// libsecret derives the file's key from the portal's secret on every process start, with as many PBKDF2 iterations as
/// the file records. Where the file does not exist yet, the store makes it, empty, recording 1,000 iterations instead of
/// the 100,000 libsecret would (about 17 ms of every launch). That relies on the portal's secret being 64 random bytes,
/// not a password (as gnome-keyring's and KWallet's portals make it), as hard to guess either way: the store asks the
/// portal for it once more and measures it first, and leaves a secret of another length's file to libsecret. A file
/// libsecret made keeps its count. A file libsecret 0.20 aborts on (a salt whose recorded size is not its own, as a
/// file cut short reads) is reported as ``KeychainError/corruptKeyringFile(path:reason:)`` and left as it is; any other
/// file (another format version too) is left to libsecret, which reports what it cannot read.
///
/// It holds the **private scope** only: a key with an access group is refused with
/// ``KeychainError/invalidKey(_:reason:)`` (a group is shared through the broker: ``BrokerKeychainStore``).
/// Every call first checks, within ``Configuration/timeout``, that this process is sandboxed and that the portal
/// answers, and that libsecret chose its file keyring; otherwise it fails with ``KeychainError/noPortal(detail:)``
/// and nothing is stored elsewhere. libsecret reads the file once per process: a second process of the same app
/// sees the items as they were when it first used the store, and the last process to write keeps its version of
/// the file. Observations report this process's own writes (the file keyring sends no signals).
public final class SecretPortalStore: KeychainStore {
    /// How the store reaches the portal.
    public struct Configuration: Sendable {
        /// The longest the portal check and each call may take, before ``KeychainError/timedOut(operation:limit:writes:)``.
        public var timeout: Duration
        /// Where the store logs; never a secret.
        public var logger: Logger

        /// - Parameters:
        ///   - timeout: Defaults to 10 seconds (the first call waits for the portal to hand over the key).
        ///   - logger: Defaults to a logger labelled `SecretKeychain`.
        public init(timeout: Duration = .seconds(10), logger: Logger = Logger(label: "SecretKeychain")) {
            self.timeout = timeout
            self.logger = logger
        }
    }

    public let configuration: Configuration
    /// One call at a time (libsecret's file keyring is one object written whole), and changes announced in order.
    private let calls = Mutex<Readiness>(.unchecked)
    private let observers = LocalObservers(label: "SecretKeychain.SecretPortalStore.changes")
    /// The serial queue the `async` methods run their blocking calls on.
    public let blockingQueue = DispatchQueue(label: "SecretKeychain.SecretPortalStore")

    private enum Readiness {
        case unchecked
        /// The portal answered with libsecret's version as the store was chosen (``SandboxStore/automatic(sandbox:secretService:)``).
        case portalAnswered
        case ready
        case unavailable(String)
    }

    /// Creates a store; nothing is contacted until the first call.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// A store whose portal has just answered ``versionCall`` with libsecret's version: its first call does not ask again.
    init(configuration: Configuration, portalAnswered: Bool) {
        self.configuration = configuration
        if portalAnswered { calls.withLock { $0 = .portalAnswered } }
    }

    // MARK: Whether the portal keyring can be used

    /// The interface, its owner and its object, as libsecret calls them.
    static let portalName = "org.freedesktop.portal.Desktop"
    static let portalPath = "/org/freedesktop/portal/desktop"
    static let secretInterface = "org.freedesktop.portal.Secret"
    /// The portal interface's version libsecret 0.20 speaks.
    static let portalVersion: UInt32 = 1

    /// Why the portal keyring cannot be used in this process, or `nil` when it can: not sandboxed (libsecret
    /// keeps a file keyring only inside Flatpak and Snap), no portal, or a portal without a Secret backend.
    /// One bounded bus call; blocks the calling thread.
    public static func unavailability(sandbox: Sandbox = .current, timeout: Duration = .seconds(5)) -> String? {
        switch precheck(sandbox: sandbox) {
        case .usable: return nil
        case .unavailable(let reason): return reason
        case .askThePortal:
            let answers = SessionBusCall.callTogether([versionCall], limit: timeout)
            defer { SessionBusCall.release(answers) }
            return unavailability(versionAnswer: answers[0])
        }
    }

    /// What this process alone tells of the portal keyring, before the portal is asked.
    enum Precheck {
        /// Usable without asking: libsecret's own test switch.
        case usable
        /// Not usable, for this reason.
        case unavailable(String)
        /// Usable if the portal answers ``versionCall`` with libsecret's version.
        case askThePortal
    }

    static func precheck(sandbox: Sandbox) -> Precheck {
        let environment = ProcessInfo.processInfo.environment
        // libsecret's own test switch: its file backend with a fixed password instead of the portal's.
        if environment["SECRET_BACKEND"] == "file", environment["SECRET_FILE_TEST_PASSWORD"] != nil { return .usable }
        guard sandbox.isSandboxed else {
            return .unavailable("this process runs in no Flatpak or Snap sandbox, where alone libsecret keeps an app's own file keyring")
        }
        return .askThePortal
    }

    /// The question libsecret asks before it chooses its file keyring: the Secret portal's `version` property.
    static var versionCall: SessionBusCall.Call {
        SessionBusCall.Call(
            portalName, portalPath, "org.freedesktop.DBus.Properties", "Get",
            arguments: GVariantValues.tuple([g_variant_new_string(secretInterface), g_variant_new_string("version")]), replyType: "(v)")
    }

    /// Why the portal keyring cannot be used, from the answer to ``versionCall`` (not released here); `nil` when it can.
    static func unavailability(versionAnswer: Result<OpaquePointer, SessionBusCall.Failure>) -> String? {
        switch versionAnswer {
        case .success(let reply):
            guard let value = GVariantValues.property(in: reply, ofType: "u") else { return "the Secret portal's version is not a number" }
            defer { g_variant_unref(value) }
            let version = g_variant_get_uint32(value)
            return version == portalVersion ? nil : "the Secret portal speaks version \(version), libsecret version \(portalVersion)"
        case .failure(let error):
            switch error.kind {
            case .remote(let name) where name.hasPrefix("org.freedesktop.DBus.Error.Unknown") || name == "org.freedesktop.DBus.Error.InvalidArgs":
                return "the desktop portal has no Secret backend in this session"
            case .remote where error.isServiceUnknown:
                return "no desktop portal (org.freedesktop.portal.Desktop) answers on the session bus"
            default:
                return "the desktop portal did not answer: \(error.message)"
            }
        }
    }

    /// Checks, under `calls`, until it succeeds once, that the portal keyring can be used and that libsecret chose it.
    private func checkReady(_ readiness: inout Readiness) throws(KeychainError) {
        switch readiness {
        case .ready: return
        case .unavailable(let reason): throw .noPortal(detail: reason)
        case .unchecked:
            // Not remembered: the portal may start, or answer, by the next call.
            if let reason = Self.unavailability(timeout: configuration.timeout) { throw .noPortal(detail: reason) }
        case .portalAnswered:
            // Asked when the store was chosen, just before; libsecret asks the portal again as it chooses.
            break
        }
        // Before libsecret reads the file: a missing one is made with few iterations (the portal's secret being 64 bytes),
        // one libsecret would abort on refused.
        try PortalKeyringFile.prepare(limit: configuration.timeout, logger: configuration.logger)
        switch PasswordAPI.backendIsFileKeyring(limit: configuration.timeout) {
        case .success(true):
            readiness = .ready
        case .success(false):
            // Remembered: libsecret chooses its backend once per process.
            let reason = "libsecret did not choose its file keyring (the portal did not answer libsecret's own check)"
            readiness = .unavailable(reason)
            throw .noPortal(detail: reason)
        case .failure(let error):
            // Not remembered: the next call asks the portal again (it may have been slow to hand over the key).
            readiness = .unchecked
            throw error
        }
    }

    private func perform<Result>(
        _ operation: String, writes: Bool, _ body: (UnsafeMutablePointer<GCancellable>) throws(GLibError) -> Result
    ) throws(KeychainError) -> Result {
        try calls.withLock { readiness throws(KeychainError) -> Result in
            try checkReady(&readiness)
            let deadline = try CallDeadline(limit: configuration.timeout)
            defer { withExtendedLifetime(deadline) {} }  // the cancellable lives until the call has returned
            do throws(GLibError) {
                return try body(deadline.cancellable)
            } catch {
                if deadline.hasExpired || error.isCancelled {
                    throw .timedOut(operation: operation, limit: configuration.timeout, writes: writes)
                }
                configuration.logger.debug("The portal keyring failed", metadata: ["operation": "\(operation)", "error": "\(error.message)"])
                throw error.underlying
            }
        }
    }

    private static func requirePrivate(_ key: KeychainKey) throws(KeychainError) {
        try key.validate()
        guard key.accessGroup == nil else {
            throw .invalidKey(key, reason: "the portal keyring holds the app's own items only; an access group is shared through the broker")
        }
    }

    // MARK: KeychainStore

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try Self.requirePrivate(key)
        let found = try perform("Reading \(key)", writes: false) { cancellable throws(GLibError) in
            try PasswordAPI.lookup(SecretServiceSchema.attributes(for: key), cancellable: cancellable)
        }
        guard let found else { return nil }
        guard found.count <= KeychainLimits.maximumSecretSize else {
            throw .oversizedItem("\(key) in the portal keyring", size: found.count, limit: KeychainLimits.maximumSecretSize)
        }
        return found
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try Self.requirePrivate(key)
        try KeychainLimits.validate(secretSize: data.count)
        try perform("Storing \(key)", writes: true) { cancellable throws(GLibError) in
            try PasswordAPI.store(data, attributes: SecretServiceSchema.attributes(for: key), label: label, cancellable: cancellable)
            observers.announce([KeychainChange(key: key, kind: .stored)])
        }
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try Self.requirePrivate(key)
        return try perform("Removing \(key)", writes: true) { cancellable throws(GLibError) in
            let removed = try PasswordAPI.clear(SecretServiceSchema.attributes(for: key), cancellable: cancellable)
            if removed { observers.announce([KeychainChange(key: key, kind: .removed)]) }
            return removed
        }
    }

    public func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] {
        try listing(in: scope).items
    }

    public func listing(in scope: KeychainScope) throws(KeychainError) -> KeychainListing {
        // The file keyring holds no group: a group's listing is empty without asking.
        if case .group = scope { return KeychainListing(items: []) }
        let found = try perform("Listing the portal keyring", writes: false) { cancellable throws(GLibError) in
            try PasswordAPI.search(SecretServiceSchema.attributes(for: scope), cancellable: cancellable)
        }
        var listing = KeychainListing(items: [])
        for item in found {
            switch SecretServiceSchema.key(from: item.attributes) {
            case .success(let key) where scope.contains(key):
                listing.items.append(KeychainItemInfo(key: key, label: item.label, created: item.created, modified: item.modified, size: item.size))
            case .success:
                continue
            case .failure(let error):
                listing.unrecognized.append(UnrecognizedKeychainItem(
                    identifier: item.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                    label: item.label, attributes: item.attributes, reason: error.description, created: item.created,
                    modified: item.modified))
            }
        }
        listing.items.sort { KeychainKey.listingOrder($0.key, $1.key) }
        listing.unrecognized.sort { $0.identifier < $1.identifier }
        return listing
    }

    /// The portal keyring holds no group: nothing to remove.
    @discardableResult
    public func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { 0 }

    /// Reports this process's writes: the file keyring sends no signals of other processes' changes.
    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        observers.observe(in: scope, handler)
    }
}
