/// Why the emulator could not start, or refused an administrative request.
public enum AuthEmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address could not be listened on (in use, not local, not an address).
    case cannotListen(host: String, port: Int, reason: String)
    /// The configuration is not usable.
    case invalidConfiguration(String)
    /// An accounts file could not be imported; nothing was changed.
    case invalidImport(String)
    /// No account has this uid.
    case noSuchAccount(uid: String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            "The emulator cannot listen on \(host):\(port) (\(reason)); choose another port with --port, or stop what uses it."
        case .invalidConfiguration(let reason):
            "The emulator's configuration is not usable: \(reason)."
        case .invalidImport(let reason):
            "The accounts cannot be imported: \(reason). Nothing was changed."
        case .noSuchAccount(let uid):
            "The emulator has no account \(uid)."
        }
    }
}
