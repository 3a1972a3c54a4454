import CSecret
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

extension SecretServiceStore {
    /// Checks, in order, the session bus, the provider owning `org.freedesktop.secrets`, the
    /// configured collection (where its alias points, whether it is locked), and a write / read /
    /// delete round trip of a throwaway item. Never prompts; every call is bounded by the timeout.
    public func diagnose() -> SecretServiceDiagnosis {
        var report = SecretServiceDiagnosis(busAddress: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"])
        let limit = configuration.timeout
        let bus: OpaquePointer
        do throws(SecretServiceFailure) {
            bus = try SecretServiceClient.sessionBus(limit: limit)
        } catch .keychain(let error) {
            report.busError = error
            return report
        } catch {
            report.busError = .noSessionBus(detail: error.detail)
            return report
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }

        // A provider that D-Bus starts on demand (gnome-keyring's service file) owns the name only once
        // started: ask for that first, as libsecret's first call would. A failure here is not yet an answer.
        _ = try? SecretServiceClient.busDaemonCall(
            bus, "StartServiceByName", [g_variant_new_string("org.freedesktop.secrets"), g_variant_new_uint32(0)], limit: limit)
        do throws(SecretServiceFailure) {
            let owner = try SecretServiceClient.busDaemonCall(bus, "GetNameOwner", [g_variant_new_string("org.freedesktop.secrets")], limit: limit)
            report.providerOwner = owner
            if let pid = try? SecretServiceClient.busDaemonCall(bus, "GetConnectionUnixProcessID", [g_variant_new_string(owner)], limit: limit) {
                report.providerPID = Int(pid)
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
                report.provider = SecretServiceDiagnosis.Provider(processName: comm.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        } catch {
            report.providerError = .noProvider(detail: error.detail)
            return report
        }

        do throws(KeychainError) {
            let (path, locked) = try perform("checking the collection", writes: false) { attempt throws(SecretServiceFailure) in
                (attempt.collectionPath, try attempt.client.collectionIsLocked(attempt.collectionPath))
            }
            report.collectionPath = path
            report.collectionLocked = locked
        } catch {
            report.collectionError = error
            return report
        }
        guard report.collectionLocked == false else { return report }

        let key = KeychainKey(service: "keyring-auth-doctor", account: "probe-\(UUID().uuidString)")
        let started = ContinuousClock.now
        do throws(KeychainError) {
            let value = Data("probe".utf8)
            try setData(value, for: key, label: "keyring-auth doctor probe (safe to delete)")
            defer { _ = try? removeData(for: key) }
            guard try data(for: key) == value else {
                throw KeychainError.corruptItem(key.description, reason: "the probe item read back differently")
            }
            guard try removeData(for: key) else {
                throw KeychainError.corruptItem(key.description, reason: "the probe item could not be found to delete")
            }
            report.probeDuration = ContinuousClock.now - started
        } catch {
            report.probeError = error
        }
        return report
    }
}

extension SecretServiceFailure {
    /// The failure in words, for a diagnosis.
    var detail: String {
        switch self {
        case .glib(let error, _): error.message
        case .keychain(let error): error.description
        case .expired(let call, let limit): "\(call.rawValue) got no answer within \(limit)"
        }
    }
}
