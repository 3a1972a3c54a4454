/// Why the emulator could not start, or refused an administrative request.
public enum AuthEmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address could not be listened on (the port is in use, or the address is not this machine's).
    case cannotListen(host: String, port: Int, reason: String)
    /// The host names no address: it does not resolve.
    case hostDoesNotResolve(host: String)
    /// The host is not a loopback address and ``AuthEmulator/Configuration/allowsNonLoopback`` is off.
    case notLoopback(host: String, address: String)
    /// The configuration is not usable.
    case invalidConfiguration(String)
    /// An accounts file could not be imported; nothing was changed.
    case invalidImport(String)
    /// No account has this uid.
    case noSuchAccount(uid: String)
    /// Custom claims that Firebase would refuse; nothing was changed.
    case invalidClaims(String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            "The emulator cannot listen on \(AuthEmulator.Address(host: host, port: port)) (\(reason)); choose another port, "
                + "or stop what uses it."
        case .hostDoesNotResolve(let host):
            "The emulator's host \(host) does not resolve to an address; use a loopback address such as 127.0.0.1, ::1 or localhost."
        case .notLoopback(let host, let address):
            "The emulator will not listen on \(host) (\(address)): it is not a loopback address, and the emulator accepts "
                + "any API key and deletes every account on an unauthenticated request. Use 127.0.0.1, ::1 or localhost, "
                + "or, to let the network reach it, opt in with Configuration.allowsNonLoopback."
        case .invalidConfiguration(let reason):
            "The emulator's configuration is not usable: \(reason)."
        case .invalidImport(let reason):
            "The accounts cannot be imported: \(reason). Nothing was changed."
        case .noSuchAccount(let uid):
            "The emulator has no account \(uid)."
        case .invalidClaims(let reason):
            "The custom claims cannot be set: \(reason). Claims are a JSON object of at most 1000 bytes without Firebase's reserved claims."
        }
    }
}
