import ArgumentParser
import CommandLineSupport
import Foundation
import SecretKeychain
import SystemSupport

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Find out why the keyring does not work: sandbox, session bus, provider, collection, a write/read/delete probe.",
        discussion: """
            Prints each check and, for a failed one, how to fix it; names the provider, its version where \
            it can be learnt, and its known quirks. Exits 4 on any problem.
            """)

    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard [.automatic, .secretService].contains(storeOptions.store) else {
            throw ValidationError("doctor checks the Secret Service, and in a sandbox the portal and the broker; drop --store \(storeOptions.store.rawValue).")
        }
    }

    func run() async throws {
        let store = SecretServiceStore(configuration: storeOptions.secretServiceConfiguration)
        // diagnose() blocks on D-Bus: the store's queue keeps it off the cooperative pool.
        let report = await store.blockingQueue.run { store.diagnose() }
        // In a sandbox that cannot reach the Secret Service: the portal keyring and the broker instead.
        let sandboxed = report.sandbox.isSandboxed && !report.secretServiceReachable
        let sandboxReport = sandboxed ? await store.blockingQueue.run { SandboxDiagnosis.diagnose(logger: storeOptions.logger) } : nil
        var checks = sandboxReport.map { Self.sandboxChecks(report.sandbox, $0) } ?? Self.checks(report, collection: storeOptions.collection)
        // On the host: whether the broker (for apps in other languages and sandboxed apps) can be reached.
        let broker = sandboxed || report.busError != nil ? [] : await store.blockingQueue.run { Self.brokerChecks() }
        checks += broker
        let keyringHealthy = sandboxReport.map { $0.isHealthy } ?? report.isHealthy
        // Another program on the broker's name is given the sign-ins meant for it: a problem, though the keyring works.
        let healthy = keyringHealthy && broker.allSatisfy(\.ok)
        if output.json {
            printJSON([
                "healthy": healthy,
                "checks": checks.map { ["name": $0.name, "ok": $0.ok, "detail": $0.detail, "fix": nullable($0.fix)] as [String: Any] },
                "sandbox": Self.sandboxJSON(report, sandboxReport),
                "provider": Self.providerJSON(report),
                "quirks": report.quirks.map { ["id": $0.id, "summary": $0.summary] },
            ])
        } else {
            for check in checks {
                // Details quote the provider's process name and its errors: escaped.
                print("\(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail.escapedForTerminal)")
                if let fix = check.fix { print("     fix: \(fix.escapedForTerminal)") }
                if check.name == "provider" {
                    for quirk in report.quirks { print("     quirk \(quirk.id): \(quirk.summary)") }
                }
            }
            print(
                healthy ? "The keyring works."
                    : keyringHealthy ? "The keyring works, but another program holds or waits for the broker's name; see the fix above."
                    : "The keyring does not work; see the fix above.")
        }
        if !healthy { throw ExitCode(ExitStatus.keyringUnavailable.rawValue) }
    }

    struct Check {
        var name: String
        var ok: Bool
        var detail: String
        var fix: String?
    }

    /// The checks in order, up to the first that failed. A failed check's fix is the store's own
    /// advice (``KeychainError``'s message), with the CLI's flags added where they help.
    static func checks(_ report: SecretServiceDiagnosis, collection: String) -> [Check] {
        var checks: [Check] = [sandboxCheck(report)]
        if let error = report.busError {
            checks.append(Check(
                name: "session bus", ok: false, detail: report.busAddress ?? "DBUS_SESSION_BUS_ADDRESS is not set",
                fix: advice(error)))
            return checks
        }
        checks.append(Check(name: "session bus", ok: true, detail: report.busAddress ?? "reachable"))
        if let error = report.providerError {
            checks.append(Check(name: "provider", ok: false, detail: "nothing owns org.freedesktop.secrets", fix: advice(error)))
            return checks
        }
        let who = report.provider.map { "\($0)" } ?? "an unrecognised program"
        let pid = report.providerPID.map { "pid \($0), " } ?? ""
        // "gnome-keyring 42.1-1+b2 from Debian package gnome-keyring (pid 1234, :1.1)"
        checks.append(Check(
            name: "provider", ok: true,
            detail: "\(who)\(versionDescription(report)) (\(pid)\(report.providerOwner ?? "?"))"))
        if let error = report.collectionError {
            checks.append(Check(
                name: "collection", ok: false, detail: collection,
                fix: advice(error) + " (keyring-auth: --collection default, session or PATH.)"))
            return checks
        }
        let path = report.collectionPath ?? "?"
        if report.collectionLocked == true {
            // Not an error of the store: diagnose() never asks to unlock, so there is no refused prompt to report.
            checks.append(Check(
                name: "collection", ok: false, detail: "\(collection) → \(path) is locked",
                fix: "unlock it: log in to the desktop session, open Seahorse and unlock the keyring, or start gnome-keyring-daemon with --unlock"))
            return checks
        }
        checks.append(Check(name: "collection", ok: true, detail: "\(collection) → \(path), unlocked"))
        if let error = report.probeError {
            checks.append(Check(
                name: "probe", ok: false, detail: "writing, reading and deleting a throwaway item failed",
                fix: advice(error)))
        } else if let duration = report.probeDuration {
            let milliseconds = duration.inMilliseconds
            checks.append(Check(
                name: "probe", ok: true,
                detail: "wrote, read back and deleted a throwaway item in \(String(format: "%.1f", milliseconds)) ms"))
        }
        return checks
    }

    /// Whether the broker runs (and is the installed one, with nobody queued for its name), would be started at the
    /// first call, or is not installed on this bus, and how to install it. A broker that is not installed is not a
    /// failure (Swift apps outside a sandbox do not need it); another program on its name is.
    static func brokerChecks() -> [Check] {
        let name = SandboxDiagnosis.brokerName
        let state: SessionBusCall.NameState
        do throws(SessionBusCall.Failure) {
            state = try SessionBusCall.state(of: name, limit: .seconds(5))
        } catch {
            return [Check(name: "broker", ok: true, detail: "\(name) could not be asked for (\(error.message))")]
        }
        switch state {
        case .owned:
            return BrokerOwnership.checks(of: name)
        case .activatable:
            return [Check(name: "broker", ok: true, detail: "\(name) is installed: the bus starts it at the first call")]
        case .absent:
            return [Check(
                name: "broker", ok: true,
                detail: "\(name) is not installed on this bus; apps in other languages and Flatpak apps of a group need it: install "
                    + "the keyring-auth package (sudo apt install ./keyring-auth_VERSION_ARCH.deb), or scripts/install from a checkout, "
                    + "then log in again (or reload the bus: gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus "
                    + "-m org.freedesktop.DBus.ReloadConfig)")]
        }
    }

    /// The provider's version and where it comes from (" 42.1-1 from Debian package gnome-keyring"),
    /// or ", version unknown".
    static func versionDescription(_ report: SecretServiceDiagnosis) -> String {
        guard let version = report.providerVersion, let package = report.providerPackage else { return ", version unknown" }
        return " \(version) from Debian package \(package)"
    }

    /// Which backend the store uses, and inside a sandbox whether items are shared and how to share them.
    /// The store always talks to `org.freedesktop.secrets` on the session bus; it never uses libsecret's
    /// Secret portal or file keyring, which only libsecret's password API selects in a sandbox.
    static func sandboxCheck(_ report: SecretServiceDiagnosis) -> Check {
        let reachable = report.secretServiceReachable
        guard report.sandbox.isSandboxed else {
            return Check(
                name: "sandbox", ok: true,
                detail: "none; backend: " + (reachable ? "the Secret Service on the session bus" : "none reachable (see below)"))
        }
        if reachable {
            return Check(
                name: "sandbox", ok: true,
                detail: "\(report.sandbox); backend: the Secret Service on the session bus, reachable from the sandbox: "
                    + "access groups are shared with the session's other apps")
        }
        return Check(
            name: "sandbox", ok: false,
            detail: "\(report.sandbox); backend: none reachable: org.freedesktop.secrets is not visible from the sandbox",
            fix: report.sandbox.sharingAdvice)
    }

    /// The checks of a sandbox that cannot reach the Secret Service (as it should not need to): the portal keyring
    /// for the app's own sign-in, the broker for its groups (and its own sign-in where the portal has no keyring),
    /// and a write/read/delete probe of the app's own items where they would go.
    static func sandboxChecks(_ sandbox: Sandbox, _ report: SandboxDiagnosis) -> [Check] {
        var checks = [Check(
            name: "sandbox", ok: true,
            detail: "\(sandbox); the Secret Service is out of reach, as it should be: the app needs no org.freedesktop.secrets")]
        if let reason = report.portalUnavailability {
            checks.append(Check(
                name: "portal", ok: report.brokerError == nil,
                detail: "no portal keyring: \(reason); the app's own sign-in goes through the broker",
                fix: report.brokerError == nil ? nil
                    : "run the app in a session whose desktop portal has a Secret backend (gnome-keyring's, or KWallet 6's), or install the broker (below)"))
        } else {
            checks.append(Check(name: "portal", ok: true, detail: "the Secret portal answers: the app's own sign-in lives in its portal keyring"))
        }
        if let error = report.brokerError {
            checks.append(Check(name: "broker", ok: false, detail: "\(SandboxDiagnosis.brokerName) does not answer: access groups cannot be used", fix: advice(error)))
        } else {
            checks.append(Check(name: "broker", ok: true, detail: "\(SandboxDiagnosis.brokerName) answers: access groups under the app's domain are shared through it"))
        }
        if let error = report.probeError {
            checks.append(Check(name: "probe", ok: false, detail: "writing, reading and deleting a throwaway item of the app's own failed", fix: advice(error)))
        } else {
            checks.append(Check(name: "probe", ok: true, detail: "wrote, read back and deleted a throwaway item of the app's own"))
        }
        return checks
    }

    static func sandboxJSON(_ report: SecretServiceDiagnosis, _ sandboxReport: SandboxDiagnosis? = nil) -> [String: Any] {
        var kind = "none"
        var name: String?
        switch report.sandbox {
        case .none: break
        case .flatpak(let appID): kind = "flatpak"; name = appID
        case .snap(let snap): kind = "snap"; name = snap
        }
        var backend = report.secretServiceReachable ? "secret-service" : "none"
        if let sandboxReport, sandboxReport.probeError == nil { backend = sandboxReport.portalUnavailability == nil ? "portal" : "broker" }
        var json: [String: Any] = [
            "kind": kind, "name": nullable(name), "backend": backend, "howToShare": nullable(report.sandbox.sharingAdvice),
        ]
        if let sandboxReport {
            json["portal"] = ["reachable": sandboxReport.portalUnavailability == nil, "detail": nullable(sandboxReport.portalUnavailability)]
            json["broker"] = ["reachable": sandboxReport.brokerError == nil, "detail": nullable(sandboxReport.brokerError?.description)]
        }
        return json
    }

    static func providerJSON(_ report: SecretServiceDiagnosis) -> Any {
        guard report.providerOwner != nil else { return NSNull() }
        return [
            "name": nullable(report.provider.map { "\($0)" }), "pid": report.providerPID.map { $0 as Any } ?? NSNull(),
            "busName": nullable(report.providerOwner), "executable": nullable(report.providerExecutable),
            "version": nullable(report.providerVersion), "package": nullable(report.providerPackage),
        ] as [String: Any]
    }

    /// What the store says to do about `error`, as every command tells it (``CLIFailure``).
    private static func advice(_ error: KeychainError) -> String {
        CLIFailure(error).message
    }
}
