import CSecret
import FoundationEssentials
import SystemSupport

extension SecretServiceStore {
    /// Checks, in order, the session bus, the provider owning `org.freedesktop.secrets`, the
    /// configured collection (where its alias points, whether it is locked), and a write / read /
    /// delete round trip of a throwaway item. Never prompts; every call is bounded by the timeout.
    /// Blocks the calling thread on D-Bus: from `async` code, run it on a queue of your own.
    public func diagnose() -> SecretServiceDiagnosis {
        diagnose(sandbox: SandboxDetection.current, versions: ProviderVersionLookup())
    }

    func diagnose(sandbox detection: SandboxDetection, versions: ProviderVersionLookup) -> SecretServiceDiagnosis {
        var report = SecretServiceDiagnosis(busAddress: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"])
        report.sandbox = detection.detect()
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
                report.provider = SecretServiceDiagnosis.Provider(processID: pid) ?? SecretServiceDiagnosis.Provider(processName: "")
                if let executable = ProviderVersionLookup.executable(pid: Int(pid) ?? -1) {
                    report.providerExecutable = executable
                    if let (package, version) = versions.version(ofExecutable: executable) {
                        report.providerPackage = package
                        report.providerVersion = version
                    }
                }
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

        let key = KeychainKey(service: "SecretKeychain-diagnosis", account: "probe-\(UUID().uuidString)")
        let started = ContinuousClock.now
        do throws(KeychainError) {
            let value = Data("probe".utf8)
            try setData(value, for: key, label: "SecretKeychain diagnosis probe (safe to delete)")
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

extension SecretServiceStore {
    /// Whether something owns `org.freedesktop.secrets` on the session bus as this process sees it
    /// (asking the bus to start an activatable provider first), within the store's timeout. In a
    /// Flatpak sandbox without `--talk-name=org.freedesktop.secrets` the name is hidden: `false`.
    /// One round trip on the process's kept session connection.
    package func secretServiceIsReachable() -> Bool {
        let answers = SessionBusCall.callTogether(Self.reachabilityCalls, limit: configuration.timeout)
        defer { SessionBusCall.release(answers) }
        return Self.isReachable(answers)
    }

    /// The questions ``isReachable(_:)`` reads, sent together: start `org.freedesktop.secrets` if it is activatable
    /// (answered once it runs), and who owns it now.
    static var reachabilityCalls: [SessionBusCall.Call] {
        let name = "org.freedesktop.secrets"
        return [
            SessionBusCall.Call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName",
                arguments: GVariantValues.tuple([g_variant_new_string(name), g_variant_new_uint32(0)]), replyType: "(u)"),
            SessionBusCall.Call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                arguments: GVariantValues.tuple([g_variant_new_string(name)]), replyType: "(s)"),
        ]
    }

    /// Whether the answers to ``reachabilityCalls`` (the first two of `answers`) show a provider: the bus started it or
    /// found it running, or it has an owner. Either fails where the sandbox hides the name.
    static func isReachable(_ answers: [Result<OpaquePointer, SessionBusCall.Failure>]) -> Bool {
        answers.prefix(2).contains { if case .success = $0 { true } else { false } }
    }
}
