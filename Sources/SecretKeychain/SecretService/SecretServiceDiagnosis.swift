import FoundationEssentials

/// What ``SecretServiceStore/diagnose()`` found, step by step. A step that was not reached,
/// because an earlier one failed, is `nil`.
public struct SecretServiceDiagnosis: Sendable {
    /// The program that owns `org.freedesktop.secrets`, when it can be recognised.
    public enum Provider: Hashable, Sendable, CustomStringConvertible {
        case gnomeKeyring, keePassXC, kWallet
        /// Another program, by its process name.
        case other(String)

        init(processName: String) {
            switch processName {
            case let name where name.hasPrefix("gnome-keyring"): self = .gnomeKeyring
            case let name where name.lowercased().hasPrefix("keepassxc"): self = .keePassXC
            case let name where name.hasPrefix("kwalletd") || name.hasPrefix("ksecretd"): self = .kWallet
            default: self = .other(processName)
            }
        }

        /// The program process `pid` runs, by its name in `/proc/PID/comm`; `nil` when that cannot
        /// be read (another PID namespace, such as a sandbox, or a process gone).
        init?(processID pid: String) {
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
            self.init(processName: name.trimmingWhitespace())
        }

        public var description: String {
            switch self {
            case .gnomeKeyring: "gnome-keyring"
            case .keePassXC: "KeePassXC"
            case .kWallet: "KWallet"
            case .other(let name): name
            }
        }
    }

    /// `DBUS_SESSION_BUS_ADDRESS`, as this process sees it.
    public var busAddress: String?
    /// Whether the session's Secret Service could be reached: apps that reach it share items.
    public var secretServiceReachable: Bool { providerOwner != nil }
    /// Why the session bus could not be reached.
    public var busError: KeychainError?
    /// The unique bus name owning `org.freedesktop.secrets`.
    public var providerOwner: String?
    /// The provider's process id.
    public var providerPID: Int?
    /// The provider, recognised by its process name.
    public var provider: Provider?
    /// The executable the provider's process runs (`/proc/PID/exe`).
    public var providerExecutable: String?
    /// The provider's version: that of the installed Debian package of its executable (from dpkg's
    /// database; none of the providers publishes a version on the bus). `nil` when unknown: another
    /// distribution, an executable of no known package, or one replaced since the process started.
    public var providerVersion: String?
    /// The Debian package ``providerVersion`` comes from.
    public var providerPackage: String?
    /// The known quirks of the provider (``Provider/quirks``); empty when none are known.
    package var quirks: [ProviderQuirk] { provider?.quirks ?? [] }
    /// The sandbox this process runs in. The store always talks to `org.freedesktop.secrets` on the
    /// session bus (never libsecret's portal or file keyring): inside a sandbox, ``providerOwner``
    /// says whether the sandbox lets it through.
    public var sandbox: Sandbox = .none
    /// Why no provider could be found.
    public var providerError: KeychainError?
    /// The object path of the collection the store uses.
    public var collectionPath: String?
    /// Whether the collection is locked.
    public var collectionLocked: Bool?
    /// Why the collection could not be resolved or read.
    public var collectionError: KeychainError?
    /// How long writing, reading back and deleting a throwaway item took, when it worked.
    public var probeDuration: Duration?
    /// Why the probe failed.
    public var probeError: KeychainError?

    /// Whether every step passed.
    public var isHealthy: Bool {
        busError == nil && providerError == nil && collectionError == nil && collectionLocked == false && probeError == nil
            && probeDuration != nil
    }
}
