import Foundation
import SystemSupport

/// The private bus and throwaway keyring that `dbus/with-keyring` set up for this test run.
///
/// Keyring tests call ``Harness/require()`` first: outside the harness they fail instead of
/// touching the keyring of the person running them.
package struct Harness: Sendable {
    /// The throwaway directory holding HOME, XDG_* and the keyring files.
    package let root: URL
    /// The repository's `dbus/` directory.
    package let scripts: URL
    /// The throwaway keyring's password (KeePassXC's database password too; KWallet's wallet has
    /// an empty password).
    package let password: String
    /// The Secret Service this run's harness started (`dbus/with-keyring --provider …`).
    package let provider: Provider

    /// A Secret Service provider the harness can run, named as `dbus/with-keyring --provider` names it.
    package enum Provider: String, Sendable, CaseIterable, CustomStringConvertible {
        /// gnome-keyring-daemon, the default: the login collection, unlocked with the harness password.
        case gnomeKeyring = "gnome-keyring"
        /// KeePassXC with a throwaway database whose root group is exposed as the collection `harness`.
        case keepassxc
        /// kwalletd5 with a throwaway, empty-password wallet `kdewallet`.
        case kwallet

        package var description: String { rawValue }

        /// The collection the `default` alias points to in the harness.
        package var defaultCollection: String {
            switch self {
            case .gnomeKeyring: Harness.loginCollection
            case .keepassxc: "/org/freedesktop/secrets/collection/harness"
            case .kwallet: "/org/freedesktop/secrets/collection/kdewallet"
            }
        }

        /// Whether a client asking for a locked item's secret is refused at once, as with
        /// gnome-keyring and no prompter. With KeePassXC, libsecret's unlock prompt opens a dialog no
        /// one can answer headless (the call hangs); with KWallet the prompt completes by itself for the
        /// empty-password wallet (the call succeeds and the collection is unlocked again).
        package var refusesLockedAtOnce: Bool { self == .gnomeKeyring }

        /// What a client that may prompt (a store with an `unlockTimeout`) meets in the harness when
        /// the default collection is locked.
        package enum UnlockPrompt: Sendable {
            /// Refused at once: there is no prompter (gnome-keyring).
            case refusedAtOnce
            /// A dialog no one can answer headless: the call waits until the store's
            /// `unlockTimeout`, then fails with `locked` (KeePassXC).
            case neverAnswered
            /// Completes by itself (the empty-password wallet): the collection is unlocked again
            /// and the call succeeds (KWallet).
            case unlocksByItself
        }

        /// What a client that may prompt meets when the default collection is locked.
        package var unlockPrompt: UnlockPrompt {
            switch self {
            case .gnomeKeyring: .refusedAtOnce
            case .keepassxc: .neverAnswered
            case .kwallet: .unlocksByItself
            }
        }

        /// Why tests with several processes writing and deleting one item at once cannot run
        /// against the provider, `nil` where they can. KeePassXC 2.7.4 itself crashes (SIGSEGV: a
        /// null pointer in an event queued on its main loop, seen under gdb) when several clients
        /// write and delete one item at once: measured with the fault suite's 8, 4, 3 and 2 apps and
        /// with 4 processes writing one key, each run ending with KeePassXC gone.
        package var concurrentWritersUnsupported: String? {
            self == .keepassxc
                ? "KeePassXC 2.7.4 crashes (SIGSEGV in its main loop) when several clients write and delete one item at once"
                : nil
        }

        /// The name `keyring-auth doctor` gives the provider.
        package var doctorName: String {
            switch self {
            case .gnomeKeyring: "gnome-keyring"
            case .keepassxc: "KeePassXC"
            case .kwallet: "KWallet"
            }
        }

        /// The file name of the provider's executable.
        package var executable: String {
            switch self {
            case .gnomeKeyring: "gnome-keyring-daemon"
            case .keepassxc: "keepassxc"
            case .kwallet: "kwalletd5"
            }
        }

        /// The Debian package the provider's executable comes from.
        package var package: String {
            switch self {
            case .gnomeKeyring: "gnome-keyring"
            case .keepassxc: "keepassxc"
            case .kwallet: "libkf5wallet-bin"
            }
        }

        /// Whether replacing an item (`CreateItem` with `replace`) gives it the new label. KWallet
        /// keeps the old one: its entries are named by their label.
        package var replacesLabel: Bool { self != .kwallet }

        /// Whether the provider has a `session` collection (gnome-keyring's in-memory one).
        package var hasSessionCollection: Bool { self == .gnomeKeyring }
    }

    package struct NotInHarness: Error, CustomStringConvertible {
        package let description: String
    }

    /// The harness this process runs in.
    ///
    /// - Throws: ``NotInHarness`` when the session bus or HOME is not the harness's own.
    /// Whether the harness's provider serves the desktop portal's Secret backend (gnome-keyring's does; KWallet 5 and
    /// KeePassXC have none), which `dbus/start-portal` uses without `--no-secret`.
    package static var providerHasSecretPortal: Bool {
        (ProcessInfo.processInfo.environment["KEYRING_AUTH_HARNESS_PROVIDER"] ?? Provider.gnomeKeyring.rawValue) == Provider.gnomeKeyring.rawValue
    }

    package static func require() throws -> Harness {
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
        let name = environment["KEYRING_AUTH_HARNESS_PROVIDER"] ?? Provider.gnomeKeyring.rawValue
        guard let provider = Provider(rawValue: name) else {
            throw NotInHarness(description: "KEYRING_AUTH_HARNESS_PROVIDER names no provider the harness knows: \(name).")
        }
        return Harness(
            root: URL(fileURLWithPath: root), scripts: URL(fileURLWithPath: scripts), password: password, provider: provider)
    }

    /// The process ID of the running provider (gnome-keyring, keepassxc or kwalletd5).
    package func providerPID() throws -> Int32 {
        let text = try String(contentsOf: root.appendingPathComponent("\(provider.rawValue).pid"), encoding: .utf8)
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NotInHarness(description: "dbus/start-keyring left no process ID")
        }
        return pid
    }

    /// Stops the provider and starts a new one on the same keyring files, unlocked.
    package func restartProvider() async throws {
        let result = try await Subprocess.run(scripts.appendingPathComponent("restart-keyring").path, [])
        try result.requireSuccess("dbus/restart-keyring")
    }

    /// Makes the provider write what it holds to its file now (`dbus/save-keyring`): KWallet's
    /// `sync` through its own D-Bus API; gnome-keyring and KeePassXC (auto-save) have nothing to do.
    package func saveProvider() async throws {
        try await Subprocess.run(scripts.appendingPathComponent("save-keyring").path, []).requireSuccess("dbus/save-keyring")
    }

    /// Stops the provider; ``startProvider()`` starts it again on the same keyring files.
    package func stopProvider() async throws {
        try await Subprocess.run(scripts.appendingPathComponent("stop-keyring").path, []).requireSuccess("dbus/stop-keyring")
    }

    /// Starts the provider on the harness's keyring files, unlocked.
    package func startProvider() async throws {
        try await Subprocess.run(scripts.appendingPathComponent("start-keyring").path, []).requireSuccess("dbus/start-keyring")
    }

    /// Runs `body` with `dbus/providers/stalling-prompts` in the provider's place: a Secret Service
    /// that answers every `CreateItem` and `Item.Delete` with a prompt it never completes. Stops the
    /// provider first and starts it again afterwards, also when `body` throws.
    ///
    /// - Returns: What `body` returned, and the methods the fake was called with, one
    ///   `Interface.Method /object/path` line each, in order.
    package func withStallingPrompts<T: Sendable>(_ body: () async throws -> T) async throws -> (T, [String]) {
        let directory = root.appendingPathComponent("stalling-prompts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (calls, output) = (directory.appendingPathComponent("calls"), directory.appendingPathComponent("output"))
        try Data().write(to: output)
        try await stopProvider()
        let fake = try ChildProcess(
            [scripts.appendingPathComponent("providers/stalling-prompts").path, calls.path],
            stdin: URL(fileURLWithPath: "/dev/null"), stdout: output, stderr: output)
        let result: Result<T, any Error>
        do {
            try await Subprocess.run("gdbus", ["wait", "--session", "--timeout", "10", "org.freedesktop.secrets"])
                .requireSuccess("gdbus wait for dbus/providers/stalling-prompts (its output: \(output.path))")
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        fake.send(SIGTERM)
        _ = await fake.exitStatus()
        try await startProvider()
        let lines = (try? String(contentsOf: calls, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        return (try result.get(), lines)
    }

    /// Locks the provider's default collection (gnome-keyring: the login collection) through the
    /// Secret Service's own `Lock` method.
    package func lockLoginCollection() async throws {
        guard provider == .gnomeKeyring else {
            try await Subprocess.run(scripts.appendingPathComponent("lock-keyring").path, []).requireSuccess("dbus/lock-keyring")
            return
        }
        let result = try await Subprocess.run("gdbus", [
            "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
            "--method", "org.freedesktop.Secret.Service.Lock", "['\(Self.loginCollection)']",
        ])
        try result.requireSuccess("gdbus call …Service.Lock")
    }

    /// Unlocks the provider's default collection without anyone answering a prompt: gnome-keyring's
    /// login collection with its password, as its own tools do; KeePassXC and KWallet through
    /// `dbus/unlock-keyring`.
    package func unlockLoginCollection() throws {
        guard provider == .gnomeKeyring else {
            let devNull = URL(fileURLWithPath: "/dev/null")
            let status = try ChildProcess(
                [scripts.appendingPathComponent("unlock-keyring").path], stdin: devNull, stdout: devNull, stderr: devNull
            ).waitBlocking()
            guard status == 0 else {
                throw NotInHarness(description: "dbus/unlock-keyring failed (status \(status))")
            }
            return
        }
        try RawSecretService.unlockWithMasterPassword(collection: Self.loginCollection, password: password)
    }

    /// Whether the default collection is locked now (its `Locked` property, read with `gdbus`).
    package func defaultCollectionIsLocked() async throws -> Bool {
        let result = try await Subprocess.run("gdbus", [
            "call", "--session", "--timeout", "10", "--dest", "org.freedesktop.secrets", "--object-path", defaultCollection,
            "--method", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Collection", "Locked",
        ])
        try result.requireSuccess("gdbus call …Properties.Get Locked")
        switch result.output.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "(<true>,)": return true
        case "(<false>,)": return false
        case let other: throw NotInHarness(description: "unexpected Locked property: \(other)")
        }
    }

    /// The collection the `default` alias points to in this run's harness.
    package var defaultCollection: String { provider.defaultCollection }

    /// gnome-keyring's login collection, which the `default` alias points to in the default harness.
    package static let loginCollection = "/org/freedesktop/secrets/collection/login"

    /// The path of the built executable `name`, such as `keychain-probe`.
    package static func product(_ name: String) throws -> String {
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
