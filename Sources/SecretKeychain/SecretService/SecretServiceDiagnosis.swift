import Foundation

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
    /// Why the session bus could not be reached.
    public var busError: KeychainError?
    /// The unique bus name owning `org.freedesktop.secrets`.
    public var providerOwner: String?
    public var providerPID: Int?
    public var provider: Provider?
    /// Why no provider could be found.
    public var providerError: KeychainError?
    /// The object path of the collection the store uses.
    public var collectionPath: String?
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
