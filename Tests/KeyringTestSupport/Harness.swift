import Foundation

/// The private bus and throwaway keyring that `dbus/with-keyring` set up for this test run.
///
/// Keyring tests call ``Harness/require()`` first: outside the harness they fail instead of
/// touching the keyring of the person running them.
public struct Harness: Sendable {
    /// The throwaway directory holding HOME, XDG_* and the keyring files.
    public let root: URL
    /// The repository's `dbus/` directory.
    public let scripts: URL
    /// The throwaway keyring's password.
    public let password: String

    public struct NotInHarness: Error, CustomStringConvertible {
        public let description: String
    }

    /// The harness this process runs in.
    ///
    /// - Throws: ``NotInHarness`` when the session bus or HOME is not the harness's own.
    public static func require() throws -> Harness {
        let environment = ProcessInfo.processInfo.environment
        let fix = "run the tests as `dbus/with-keyring swift test`, which starts a private bus and keyring"
        guard let root = environment["KEYRING_AUTH_HARNESS_ROOT"],
              let scripts = environment["KEYRING_AUTH_HARNESS_DIR"],
              let password = environment["KEYRING_AUTH_HARNESS_PASSWORD"],
              let bus = environment["KEYRING_AUTH_HARNESS_BUS"]
        else {
            throw NotInHarness(description: "Refusing to touch a keyring outside the test harness: \(fix).")
        }
        guard environment["DBUS_SESSION_BUS_ADDRESS"] == bus,
              let home = environment["HOME"], home.hasPrefix(root + "/")
        else {
            throw NotInHarness(description: "The session bus or HOME is not the harness's own: \(fix).")
        }
        return Harness(root: URL(fileURLWithPath: root), scripts: URL(fileURLWithPath: scripts), password: password)
    }

    /// The process ID of the running gnome-keyring.
    public func providerPID() throws -> Int32 {
        let text = try String(contentsOf: root.appendingPathComponent("gnome-keyring.pid"), encoding: .utf8)
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NotInHarness(description: "dbus/start-keyring left no process ID")
        }
        return pid
    }

    /// Stops gnome-keyring and starts a new one on the same keyring files.
    public func restartProvider() async throws {
        let result = try await Subprocess.run(scripts.appendingPathComponent("restart-keyring").path, [])
        try result.requireSuccess("dbus/restart-keyring")
    }

    /// Stops gnome-keyring; ``startProvider()`` starts it again on the same keyring files.
    public func stopProvider() async throws {
        try await Subprocess.run(scripts.appendingPathComponent("stop-keyring").path, []).requireSuccess("dbus/stop-keyring")
    }

    /// Starts gnome-keyring on the harness's keyring files, unlocked.
    public func startProvider() async throws {
        try await Subprocess.run(scripts.appendingPathComponent("start-keyring").path, []).requireSuccess("dbus/start-keyring")
    }

    /// Locks the login collection through the Secret Service's own `Lock` method.
    public func lockLoginCollection() async throws {
        let result = try await Subprocess.run("gdbus", [
            "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
            "--method", "org.freedesktop.Secret.Service.Lock", "['\(Self.loginCollection)']",
        ])
        try result.requireSuccess("gdbus call …Service.Lock")
    }

    /// Unlocks the login collection with its password, without a prompt, as gnome-keyring's own tools do.
    public func unlockLoginCollection() throws {
        try RawSecretService.unlockWithMasterPassword(collection: Self.loginCollection, password: password)
    }

    /// The login collection, which the `default` alias points to in the harness.
    public static let loginCollection = "/org/freedesktop/secrets/collection/login"

    /// The path of the built executable `name`, such as `keychain-probe`.
    public static func product(_ name: String) throws -> String {
        try productsDirectory().appendingPathComponent(name).path
    }

    /// The directory holding the built products, such as `keychain-probe`.
    private static func productsDirectory() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for directory in candidates
        where FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("keychain-probe").path) {
            return directory
        }
        throw NotInHarness(description: "keychain-probe is not built next to the tests (looked in \(candidates.map(\.path)))")
    }
}
