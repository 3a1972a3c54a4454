import CSecret
import Dispatch
import FoundationEssentials
import Logging
import SystemSupport

/// A ``KeychainStore`` served by KeyringAuth's broker (`keyring-auth-broker`, `io.github.keyringauth.Broker1` on the
/// session bus, its item interface `io.github.keyringauth.Keychain1`): how a sandboxed app reaches an access
/// group, and its own items where the desktop has no Secret portal.
///
/// The broker runs on the host and keeps the items in the session's Secret Service, where host apps, the
/// `keyring-auth` command and the broker's other clients find them. It serves the items KeyringAuth's `Auth`
/// keeps, and no other: in a group, the user item (account `firebase_auth_firebase_user`); in the private scope,
/// items of service `firebase_auth_…` and account `firebase_auth_1_…`, which it keeps apart for each verified
/// app. It grants a Flatpak app the groups under its app ID's domain only (the Access groups article says the
/// rule). The app needs one permission: `--talk-name=io.github.keyringauth.Broker1`.
///
/// Every call is bounded by ``Configuration/timeout``. Where no broker is installed, or the sandbox does not
/// let the app talk to it, calls fail at once with ``KeychainError/noBroker(detail:)``; a refusal by the broker
/// is ``KeychainError/brokerRefused(detail:)``. Observations follow the broker's `ItemChanged` signals on a
/// thread of their own, and follow again, reporting the scope's items as changed, when the broker restarts.
public final class BrokerKeychainStore: KeychainStore {
    /// How the store reaches the broker.
    public struct Configuration: Sendable {
        /// The longest any one call may take (the broker's activation included).
        public var timeout: Duration
        /// Where the store logs; never a secret.
        public var logger: Logger

        /// - Parameters:
        ///   - timeout: Defaults to 15 seconds: the broker waits up to 5 seconds on the Secret Service itself.
        ///   - logger: Defaults to a logger labelled `SecretKeychain`.
        public init(timeout: Duration = .seconds(15), logger: Logger = Logger(label: "SecretKeychain")) {
            self.timeout = timeout
            self.logger = logger
        }
    }

    /// The broker's well-known name, its object and its item interface.
    public static let busName = "io.github.keyringauth.Broker1"
    static let objectPath = "/io/github/keyringauth/Broker1"
    static let interface = "io.github.keyringauth.Keychain1"

    public let configuration: Configuration
    /// The serial queue the `async` methods run their blocking calls on.
    public let blockingQueue = DispatchQueue(label: "SecretKeychain.BrokerKeychainStore")

    /// Creates a store; nothing is contacted until the first call.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: KeychainStore

    public func data(for key: KeychainKey) throws(KeychainError) -> Data? {
        try key.validate()
        let reply = try call("Lookup", keyArguments(key), replyType: "(bay)", operation: "Reading \(key)", writes: false)
        defer { g_variant_unref(reply) }
        guard GVariantValues.bool(at: 0, of: reply) else { return nil }
        let data = GVariantValues.bytes(at: 1, of: reply)
        guard data.count <= KeychainLimits.maximumSecretSize else {
            throw .oversizedItem("\(key) from the broker", size: data.count, limit: KeychainLimits.maximumSecretSize)
        }
        return data
    }

    public func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try key.validate()
        try KeychainLimits.validate(secretSize: data.count)
        let arguments = keyArguments(key) + [g_variant_new_string(label), GVariantValues.bytes(data)]
        g_variant_unref(try call("Store", arguments, replyType: "()", operation: "Storing \(key)", writes: true))
    }

    @discardableResult
    public func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        try key.validate()
        let reply = try call("Remove", keyArguments(key), replyType: "(b)", operation: "Removing \(key)", writes: true)
        defer { g_variant_unref(reply) }
        return GVariantValues.bool(at: 0, of: reply)
    }

    public func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] {
        let (name, group) = switch scope {
        case .all: ("all", "")
        case .ungrouped: ("private", "")
        case .group(let group): ("group", group.rawValue)
        }
        let reply = try call(
            "List", [g_variant_new_string(name), g_variant_new_string(group)], replyType: "(a(ssssxxu))",
            operation: "Listing the broker's items", writes: false)
        defer { g_variant_unref(reply) }
        let array = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(array) }
        var items: [KeychainItemInfo] = []
        for index in 0..<g_variant_n_children(array) {
            let entry = g_variant_get_child_value(array, index)!
            defer { g_variant_unref(entry) }
            let strings = (0..<4).map { GVariantValues.string(at: $0, of: entry) }
            // The broker's answer is checked as any stored data: an item without a valid key is left out.
            guard let group = strings[0].isEmpty ? .some(nil) : (try? AccessGroup(strings[0])).map({ $0 }) else { continue }
            let key = KeychainKey(service: strings[1], account: strings[2], accessGroup: group)
            guard (try? key.validate()) != nil, scope.contains(key) else { continue }
            items.append(KeychainItemInfo(
                key: key, label: strings[3], created: Date(timeIntervalSince1970: TimeInterval(GVariantValues.int64(at: 4, of: entry))),
                modified: Date(timeIntervalSince1970: TimeInterval(GVariantValues.int64(at: 5, of: entry))), size: Int(GVariantValues.uint32(at: 6, of: entry))))
        }
        return items.sorted { KeychainKey.listingOrder($0.key, $1.key) }
    }

    @discardableResult
    public func removeAll(in group: AccessGroup) throws(KeychainError) -> Int {
        let reply = try call(
            "RemoveAll", [g_variant_new_string(group.rawValue)], replyType: "(u)", operation: "Removing the items of \(group)", writes: true)
        defer { g_variant_unref(reply) }
        return Int(GVariantValues.uint32(at: 0, of: reply))
    }

    /// Follows the broker's `ItemChanged` signals for the private scope or one group (`.all` is refused with
    /// ``KeychainError/brokerRefused(detail:)``: the broker follows one scope per call).
    public func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let group: AccessGroup?
        switch scope {
        case .all: throw .brokerRefused(detail: "the broker follows the private scope or one group, not every scope at once")
        case .ungrouped: group = nil
        case .group(let named): group = named
        }
        return try BrokerFollower.start(store: self, group: group, handler: handler)
    }

    // MARK: Calls

    private func keyArguments(_ key: KeychainKey) -> [OpaquePointer?] {
        [g_variant_new_string(key.accessGroup?.rawValue ?? ""), g_variant_new_string(key.service), g_variant_new_string(key.account)]
    }

    /// Calls the item interface's `method` and returns its reply, which the caller unrefs.
    func call(
        _ method: String, _ arguments: [OpaquePointer?], replyType: String, operation: String, writes: Bool
    ) throws(KeychainError) -> OpaquePointer {
        do throws(SessionBusCall.Failure) {
            return try SessionBusCall.call(
                Self.busName, Self.objectPath, Self.interface, method, arguments: GVariantValues.tuple(arguments),
                replyType: replyType, limit: configuration.timeout)
        } catch {
            let failure = Self.keychainError(for: error, operation: operation, limit: configuration.timeout, writes: writes)
            configuration.logger.debug("A call to the broker failed", metadata: ["method": "\(method)", "error": "\(failure.code)"])
            throw failure
        }
    }

    /// What a failed call means for the keychain: no broker, a refusal, or the host keychain's own state.
    static func keychainError(for failure: SessionBusCall.Failure, operation: String, limit: Duration, writes: Bool) -> KeychainError {
        let errorPrefix = busName + ".Error."
        switch failure.kind {
        case .noBus:
            return .noSessionBus(detail: failure.message)
        case .timedOut:
            return .timedOut(operation: operation + " through the broker", limit: limit, writes: writes)
        case .remote where failure.isServiceUnknown:
            return .noBroker(detail: "nothing on the session bus provides \(busName): the broker is not installed on the host, "
                + "or the sandbox does not let the app talk to it")
        case .remote("org.freedesktop.DBus.Error.AccessDenied"):
            return .noBroker(detail: "the sandbox does not let the app talk to \(busName) (\(failure.message))")
        case .remote("org.freedesktop.DBus.Error.UnknownMethod"), .remote("org.freedesktop.DBus.Error.UnknownInterface"):
            return .noBroker(detail: "the broker installed has no item interface \(interface); update keyring-auth-broker")
        case .remote(let name) where name == errorPrefix + "KeychainUnavailable":
            // "CODE: message", the host keychain's own error.
            let parts = failure.message.split(separator: ":", maxSplits: 1)
            if parts.first == "timedOut" { return .timedOut(operation: operation + " in the broker's keychain", limit: limit, writes: writes) }
            let message = parts.count == 2 ? String(parts[1].drop { $0 == " " }) : failure.message
            return .underlying(domain: busName, code: 0, message: "the broker's keychain: " + message)
        case .remote(let name) where name.hasPrefix(errorPrefix):
            return .brokerRefused(detail: failure.message)
        case .remote, .other:
            return .noBroker(detail: failure.message)
        }
    }
}
