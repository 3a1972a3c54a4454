import FoundationEssentials

/// The application sandbox this process runs in, as libsecret tells it: Flatpak (`/.flatpak-info`
/// exists) or Snap (`SNAP_NAME` or `SNAP` is set).
///
/// In a sandbox that does not let the app reach `org.freedesktop.secrets` (the permission Flathub asks apps to
/// drop), ``SandboxStore/automatic(sandbox:secretService:)`` keeps the app's own items in its portal keyring
/// (``SecretPortalStore``) and reaches access groups through the broker (``BrokerKeychainStore``).
public enum Sandbox: Hashable, Sendable, CustomStringConvertible {
    /// Not sandboxed (or in a sandbox libsecret does not recognise).
    case none
    /// A Flatpak app; its ID from `FLATPAK_ID`, when set.
    case flatpak(appID: String?)
    /// A Snap, by its name (`SNAP_NAME`, else the last component of `SNAP`).
    case snap(name: String)

    /// The sandbox of this process, from its markers (`/.flatpak-info`, `SNAP_NAME`).
    public static var current: Sandbox { SandboxDetection.current.detect() }

    /// Whether the process runs in a Flatpak or Snap sandbox.
    public var isSandboxed: Bool { self != .none }

    /// How to let the app share access groups with the session's other apps; `nil` outside a sandbox.
    public var sharingAdvice: String? {
        switch self {
        case .none:
            nil
        case .flatpak:
            "install keyring-auth-broker on the host and give the app --talk-name=io.github.keyringauth.Broker1 (finish-args "
                + "in its manifest, or flatpak override --user --talk-name=io.github.keyringauth.Broker1 APP_ID); the app's own "
                + "sign-in needs no permission"
        case .snap(let name):
            "plug the password-manager-service interface (plugs: [password-manager-service] in snapcraft.yaml) "
                + "and connect it: snap connect \(name):password-manager-service"
        }
    }

    /// "none", "Flatpak (APP_ID)" or "Snap (NAME)".
    public var description: String {
        switch self {
        case .none: "none"
        case .flatpak(let appID): appID.map { "Flatpak (\($0))" } ?? "Flatpak"
        case .snap(let name): "Snap (\(name))"
        }
    }
}

/// Finds the ``Sandbox`` from an environment and a file test, both injectable so that tests fake
/// the markers without touching `/`.
package struct SandboxDetection: Sendable {
    /// The Flatpak marker file libsecret tests.
    package static let flatpakInfoPath = "/.flatpak-info"
    /// Test-only: an environment variable naming a file that stands for `/.flatpak-info` (for this
    /// package's tests of `keyring-auth doctor`). Not for production use.
    package static let testFlatpakInfoVariable = "KEYRING_AUTH_TEST_FLATPAK_INFO"

    /// The environment to read (`FLATPAK_ID`, `SNAP_NAME`, `SNAP`).
    package var environment: [String: String]
    /// Whether a file exists at a path.
    package var fileExists: @Sendable (String) -> Bool

    /// A detection over `environment` and `fileExists`.
    ///
    /// - Parameters:
    ///   - environment: The process environment to read.
    ///   - fileExists: Tells whether a file exists at a path.
    package init(environment: [String: String], fileExists: @escaping @Sendable (String) -> Bool) {
        self.environment = environment
        self.fileExists = fileExists
    }

    /// This process's environment and file system.
    package static var current: SandboxDetection {
        SandboxDetection(environment: ProcessInfo.processInfo.environment) { FileManager.default.fileExists(atPath: $0) }
    }

    /// The sandbox the environment and files show.
    package func detect() -> Sandbox {
        let marker = environment[Self.testFlatpakInfoVariable].flatMap { $0.isEmpty ? nil : $0 } ?? Self.flatpakInfoPath
        if fileExists(marker) {
            return .flatpak(appID: environment["FLATPAK_ID"].flatMap { $0.isEmpty ? nil : $0 })
        }
        if let name = environment["SNAP_NAME"], !name.isEmpty { return .snap(name: name) }
        if let path = environment["SNAP"], !path.isEmpty {
            return .snap(name: URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent)
        }
        return .none
    }
}
