import Foundation
import SystemSupport

/// A session bus of a test's own, with a gnome-keyring of its own on it, inside the harness: a
/// test may kill this bus (the harness's own bus carries the test run itself). Processes started
/// with ``environment`` use it. Everything it started ends with ``stop()``.
package final class PrivateBus: Sendable {
    /// The bus daemon; ``kill()`` ends it as a crash would.
    package let daemon: LineChannel
    private let keyring: ChildProcess
    /// The environment for processes on this bus: its address, and directories of its own.
    package let environment: [String: String]

    /// Starts `dbus-daemon` with the harness's configuration and gnome-keyring on it, and returns
    /// once gnome-keyring owns `org.freedesktop.secrets`.
    package init(harness: Harness) async throws {
        let root = harness.root.appendingPathComponent("private-bus-\(UUID().uuidString)")
        for directory in ["home", "runtime", "data", "config", "cache"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        chmod(root.appendingPathComponent("runtime").path, 0o700)
        let config = harness.scripts.appendingPathComponent("session.conf").path
        daemon = try LineChannel(["dbus-daemon", "--config-file=\(config)", "--nofork", "--print-address=1"])
        let address = try await daemon.nextLine(within: .seconds(20))
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("runtime").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = root.appendingPathComponent("cache").path
        self.environment = environment

        let password = root.appendingPathComponent("password")
        try Data(harness.password.utf8).write(to: password)
        keyring = try ChildProcess(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"], environment: environment,
            stdin: password, stdout: URL(fileURLWithPath: "/dev/null"), stderr: URL(fileURLWithPath: "/dev/null"))
        let wait = try await Subprocess.run("gdbus", ["wait", "--session", "--timeout", "20", "org.freedesktop.secrets"], environment: environment)
        guard wait.status == 0 else {
            stop()
            throw Subprocess.Failure(description: "gnome-keyring did not take org.freedesktop.secrets on the private bus: \(wait.standardError)")
        }
    }

    /// Kills the bus daemon (SIGKILL), as when a session's bus dies, and waits until it is gone.
    package func kill() async {
        daemon.child.send(SIGKILL)
        _ = await daemon.child.exitStatus()
    }

    /// Ends the keyring and the bus.
    package func stop() {
        keyring.send(SIGKILL)
        daemon.child.send(SIGKILL)
    }

    deinit { stop() }
}
