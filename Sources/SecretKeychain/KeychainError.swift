import SystemSupport

/// Why a keychain operation failed. Every message says what to do about it.
///
/// A failed operation never loses or overwrites what was stored before it,
/// except where a case says the outcome is unknown (``timedOut(operation:limit:writes:)`` of a write).
public enum KeychainError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No D-Bus session bus could be reached.
    case noSessionBus(detail: String)
    /// Nothing owns `org.freedesktop.secrets` on the session bus.
    case noProvider(detail: String)
    /// Inside a sandbox: the desktop's Secret portal (`org.freedesktop.portal.Secret`), which keeps the
    /// key of the app's own file keyring, does not answer (the session's portal has no Secret backend).
    case noPortal(detail: String)
    /// Inside a sandbox: the sign-in broker (`io.github.keyringauth.Broker1`), through which a sandboxed app
    /// reaches an access group, is not installed, not reachable, or refused the call.
    case noBroker(detail: String)
    /// Inside a sandbox: the broker refused the call (the app may not use the access group, say).
    case brokerRefused(detail: String)
    /// The configured collection does not exist (for example, the `default` alias points nowhere).
    case noSuchCollection(String, detail: String)
    /// A collection's object path breaks the D-Bus object path grammar (for example `/a//b` or `/a/`).
    case invalidCollectionPath(String, reason: String)
    /// The collection is locked and an unlock did not complete (refused, dismissed, not allowed, or not in time).
    case locked(collection: String)
    /// A call to the provider did not answer within the time limit. When the operation `writes`
    /// (stores or removes), its outcome is unknown; a read changed nothing.
    case timedOut(operation: String, limit: Duration, writes: Bool = true)
    /// An access-group identifier breaks a rule.
    case invalidAccessGroup(String, violation: AccessGroup.Violation)
    /// A key cannot be stored (an empty service or account, or a NUL character).
    case invalidKey(KeychainKey, reason: String)
    /// The secret is larger than ``KeychainLimits/maximumSecretSize``.
    case payloadTooLarge(size: Int, limit: Int)
    /// A stored item's secret is larger than ``KeychainLimits/maximumSecretSize``; it was not read.
    case oversizedItem(String, size: Int, limit: Int)
    /// A stored item matches a key but cannot be read as one.
    case corruptItem(String, reason: String)
    /// A sandboxed app's portal keyring file cannot be opened by libsecret; it was not read or changed.
    case corruptKeyringFile(path: String, reason: String)
    /// The provider lost or refused the encrypted session in every one of several tries, each with
    /// a fresh session: KWallet 5's known bug (KDE bug 514194, fixed in KWallet 6.25). When the
    /// operation `writes`, the item may have been left with an empty secret; a read changed nothing.
    case sessionFailed(operation: String, detail: String, writes: Bool)
    /// Any other libsecret, GLib or D-Bus failure, as reported.
    case underlying(domain: String, code: Int, message: String)

    /// A short, stable name for the case, for scripts and logs: `noSessionBus`, `locked`, ….
    public var code: String {
        switch self {
        case .noSessionBus: return "noSessionBus"
        case .noProvider: return "noProvider"
        case .noPortal: return "noPortal"
        case .noBroker: return "noBroker"
        case .brokerRefused: return "brokerRefused"
        case .noSuchCollection: return "noSuchCollection"
        case .invalidCollectionPath: return "invalidCollectionPath"
        case .locked: return "locked"
        case .timedOut: return "timedOut"
        case .invalidAccessGroup: return "invalidAccessGroup"
        case .invalidKey: return "invalidKey"
        case .payloadTooLarge: return "payloadTooLarge"
        case .oversizedItem: return "oversizedItem"
        case .corruptItem: return "corruptItem"
        case .corruptKeyringFile: return "corruptKeyringFile"
        case .sessionFailed: return "sessionFailed"
        case .underlying: return "underlying"
        }
    }

    public var description: String {
        switch self {
        case .noSessionBus(let detail):
            return "No D-Bus session bus is reachable (\(detail)). Run inside a desktop session, or start one "
                + "with `dbus-run-session -- COMMAND`, and check DBUS_SESSION_BUS_ADDRESS."
        case .noProvider(let detail):
            return Self.noProviderMessage(detail: detail, orElse: "choose InMemoryStore explicitly")
        case .noPortal(let detail):
            return "The desktop's Secret portal (org.freedesktop.portal.Secret) is not available (\(detail)), so this sandboxed "
                + "app has no keyring of its own. Run it in a session whose portal has a Secret backend (gnome-keyring's, or "
                + "KWallet 6's), or install the KeyringAuth broker (keyring-auth-broker) on the host."
        case .noBroker(let detail):
            return "The KeyringAuth broker (io.github.keyringauth.Broker1) cannot serve this sandboxed app (\(detail)). A sandboxed "
                + "app reaches an access group only through it: install keyring-auth-broker on the host (its package, or "
                + "scripts/install from a clone) and give the app --talk-name=io.github.keyringauth.Broker1."
        case .brokerRefused(let detail):
            return "The KeyringAuth broker refused: \(detail) Nothing stored was changed."
        case .noSuchCollection(let collection, let detail):
            return "The keyring collection \(collection) does not exist (\(detail)). Create or choose a default "
                + "keyring in your keyring manager (Seahorse: Passwords and Keys), or start gnome-keyring with "
                + "`--unlock` so it creates the login keyring; or configure another collection."
        case .locked(let collection):
            return "The keyring collection \(collection) is locked and was not unlocked. Unlock it in your keyring "
                + "manager (or answer the unlock prompt) and try again; nothing stored was changed."
        case .timedOut(let operation, let limit, let writes):
            return "\(operation) got no answer from the Secret Service within \(limit.formattedSeconds). Check that "
                + "the provider is running and not waiting behind a prompt, or raise the time limit. "
                + (writes ? "The operation may or may not have taken effect." : "Nothing stored was changed.")
        case .invalidCollectionPath(let path, let reason):
            return "\(path.debugDescription) is not a valid D-Bus object path: \(reason). Name a collection by a path "
                + "such as /org/freedesktop/secrets/collection/login (elements of letters, digits and _, "
                + "separated by single slashes, no trailing slash), or use the default or session alias."
        case .invalidAccessGroup(let value, let violation):
            return "\(value.debugDescription) is not a valid access group: \(violation). Use a non-empty "
                + "identifier such as TEAMID.com.example.group1, at most \(AccessGroup.maximumByteCount) bytes, "
                + "with no white space, control or invisible characters."
        case .invalidKey(let key, let reason):
            return "The key \(key) cannot be stored: \(reason). Use a non-empty service and account "
                + "without NUL characters."
        case .payloadTooLarge(let size, let limit):
            return "The secret is \(size) bytes; the limit is \(limit) bytes. Store a smaller value; "
                + "nothing was written."
        case .oversizedItem(let item, let size, let limit):
            return "The stored item \(item) holds \(size) bytes, over the limit of \(limit) bytes; it was not read "
                + "and was left as it is. Inspect it with `secret-tool search --all xdg:schema \(SecretServiceSchema.name)` "
                + "and remove it if it is not needed."
        case .corruptItem(let item, let reason):
            return "The stored item \(item) cannot be read: \(reason). It was left as it is; inspect it with "
                + "`secret-tool search --all xdg:schema \(SecretServiceSchema.name)` and remove it if it is not needed."
        case .corruptKeyringFile(let path, let reason):
            return "This app's keyring file \(path) cannot be opened: \(reason). It was left as it is and nothing was "
                + "stored. Restore it from a backup, or move it aside to start an empty keyring (the app's own items in it "
                + "are then lost to the app)."
        case .sessionFailed(let operation, let detail, let writes):
            return "\(operation) failed \(Self.sessionTries) times in a row, each with a fresh encrypted session "
                + "(\(detail)). This is KWallet 5's known bug (KDE bug 514194, fixed in KWallet 6.25): try again, "
                + "or update KWallet. "
                + (writes ? "The item may have been left with an empty secret: store it again." : "Nothing stored was changed.")
        case .underlying(let domain, let code, let message):
            return "The Secret Service call failed: \(message) (\(domain) error \(code)). "
                + "Check the provider's log (and this store's logger, at debug level); `secret-tool search --all` "
                + "shows whether the keyring works at all."
        }
    }
}

extension KeychainError {
    /// How many times ``SecretServiceStore`` tries an operation, each time with a fresh session,
    /// before it reports ``sessionFailed(operation:detail:writes:)``.
    package static let sessionTries = 4

    /// The message of ``noProvider(detail:)``, with `alternative` as the last resort it offers: the
    /// library says `InMemoryStore`, a tool says its own option for it.
    package static func noProviderMessage(detail: String, orElse alternative: String) -> String {
        "No Secret Service provider owns org.freedesktop.secrets on the session bus (\(detail)). "
            + "Start one: gnome-keyring (`gnome-keyring-daemon --start --components=secrets`), KeePassXC "
            + "with Secret Service integration enabled, or KWallet; or \(alternative)."
    }
}
