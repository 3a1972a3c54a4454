/// Who is calling the broker, as xdg-desktop-portal tells it: a Flatpak app by the app ID in its
/// sandbox's `/.flatpak-info`, a Snap by its cgroup, anything else a process of the host.
enum Caller: Hashable, Sendable, CustomStringConvertible {
    /// An app in a Flatpak sandbox, by its verified app ID (for example `com.example.Notes`).
    case flatpak(appID: String)
    /// A Snap, by its snap name.
    case snap(name: String)
    /// A process outside any sandbox the broker knows: it can read the keyring itself anyway.
    case host

    var description: String {
        switch self {
        case .flatpak(let appID): "the Flatpak app \(appID)"
        case .snap(let name): "the snap \(name)"
        case .host: "a host process"
        }
    }

    /// What the broker puts before the app names of this caller's private scope (`flatpak:APP-ID:`,
    /// `snap:NAME:`), so that no other app reaches it, whatever Firebase app it names; `""` for the host.
    var privateNamespace: String {
        switch self {
        case .flatpak(let appID): "flatpak:\(appID):"
        case .snap(let name): "snap:\(name):"
        case .host: ""
        }
    }
}

/// A caller, and whether its sandbox lets it reach the network itself: the broker sends no request to a host
/// named by a caller that may not (the host and a snap may; a Flatpak app as its `[Context] shared` says).
struct CallerIdentity: Sendable {
    let caller: Caller
    let sharesNetwork: Bool
    /// The caller's process, as the bus told it (0 where unknown).
    var pid: Int32 = 0

    /// The app whose share of the broker a call counts against: a sandboxed caller's verified identity, whatever its
    /// connections and processes; a host process by its process ID (its connections all count as one).
    var app: String { caller == .host ? "host:\(pid)" : caller.privateNamespace }
}
