import Foundation

/// `dbus-monitor` on the harness's private bus (its configuration allows monitoring), for tests
/// that check what crosses the bus: content types sent, and that secrets never cross it readable.
package final class BusMonitor: Sendable {
    private let child: ChildProcess
    private let log: URL

    /// Starts monitoring messages that match `rule` and returns once the monitor is active.
    package init(matching rule: String, harness: Harness) async throws {
        log = harness.root.appendingPathComponent("monitor-\(UUID().uuidString).txt")
        try Data().write(to: log)
        child = try ChildProcess(
            ["dbus-monitor", "--session", rule], stdin: URL(fileURLWithPath: "/dev/null"), stdout: log,
            stderr: URL(fileURLWithPath: "/dev/null"))
        // The monitor is active once the bus has told it NameLost (it gave up its name to become a monitor).
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while !(try String(contentsOf: log, encoding: .utf8)).contains("member=NameLost") {
            guard clock.now < deadline else {
                child.send(SIGKILL)
                throw Subprocess.Failure(description: "dbus-monitor did not become a monitor within 20 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the monitor and returns everything it printed.
    package func stop() async throws -> String {
        child.send(SIGTERM)
        _ = await child.exitStatus()
        defer { try? FileManager.default.removeItem(at: log) }
        return try String(contentsOf: log, encoding: .utf8)
    }
}
