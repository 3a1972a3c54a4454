import FoundationEssentials
import Logging
import SecretKeychain

/// What `doctor` finds in a sandbox that cannot reach the Secret Service: whether the Secret portal keeps an app
/// keyring, whether the broker answers, and whether the app's own items can be written, read and deleted where
/// the default store puts them. Blocks on the bus: call it off the cooperative pool.
struct SandboxDiagnosis {
    static let brokerName = BrokerKeychainStore.busName

    /// Why the portal keyring cannot be used, or `nil` when it can.
    var portalUnavailability: String?
    /// Why the broker cannot be used, or `nil` when it answers.
    var brokerError: KeychainError?
    /// Why the probe of the app's own items failed, or `nil` when it passed.
    var probeError: KeychainError?

    /// Whether the app's own sign-in and its groups both work.
    var isHealthy: Bool { brokerError == nil && probeError == nil }

    static func diagnose(logger: Logger) -> SandboxDiagnosis {
        var report = SandboxDiagnosis(portalUnavailability: SecretPortalStore.unavailability())
        let broker = BrokerKeychainStore(configuration: .init(logger: logger))
        do throws(KeychainError) {
            _ = try broker.items(in: .ungrouped)
        } catch {
            report.brokerError = error
        }
        let store: any KeychainStore = report.portalUnavailability == nil ? SecretPortalStore(configuration: .init(logger: logger)) : broker
        // A key of Auth's own shape, which the broker serves too.
        let key = KeychainKey(service: "firebase_auth_doctor-probe", account: "firebase_auth_1_doctor-probe-\(UInt32.random(in: .min ... .max))")
        do throws(KeychainError) {
            let secret = Data("keyring-auth doctor".utf8)
            try store.setData(secret, for: key, label: "keyring-auth doctor's probe")
            defer { _ = try? store.removeData(for: key) }
            guard try store.data(for: key) == secret else {
                throw .corruptItem("\(key)", reason: "the probe read back something else than it wrote")
            }
        } catch {
            report.probeError = error
        }
        return report
    }
}
