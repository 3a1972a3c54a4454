import Foundation
import SystemSupport

/// `dbus-monitor` on the harness's private bus (its configuration allows monitoring), for tests
/// that check what crosses the bus: content types sent, and that secrets never cross it readable.
package final class BusMonitor: Sendable {
    private let child: ChildProcess
    private let log: URL

    /// The signal `stop()` sends through the bus to learn that the monitor has printed everything
    /// sent before it: the bus hands messages to a monitor in the order it routes them.
    private static let markerInterface = "io.github.keyringauth.TestMarker"

    /// Starts monitoring messages that match `rule` and returns once the monitor is active.
    package init(matching rule: String, harness: Harness) async throws {
        log = harness.root.appendingPathComponent("monitor-\(UUID().uuidString).txt")
        try Data().write(to: log)
        child = try ChildProcess(
            ["dbus-monitor", "--session", rule, "type='signal',interface='\(Self.markerInterface)'"],
            stdin: URL(fileURLWithPath: "/dev/null"), stdout: log, stderr: URL(fileURLWithPath: "/dev/null"))
        // The monitor is active once the bus has told it NameLost (it gave up its name to become a monitor).
        try await waitForLog(toContain: "member=NameLost", what: "NameLost")
    }

    /// Polls the log until it holds `text`. The bound only stops a broken monitor from hanging
    /// the test; a loaded machine stays far inside it.
    private func waitForLog(toContain text: String, what: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while !(try String(contentsOf: log, encoding: .utf8)).contains(text) {
            guard clock.now < deadline else {
                child.send(SIGKILL)
                throw Subprocess.Failure(description: "dbus-monitor did not print \(what) within 60 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the monitor and returns everything it printed, including every matching message
    /// sent before the call: it first waits for the monitor to print a marker sent after them.
    package func stop() async throws -> String {
        let marker = "done-\(UUID().uuidString)"
        try await Subprocess.run(
            "dbus-send", ["--session", "--type=signal", "/", "\(Self.markerInterface).Done", "string:\(marker)"]
        ).requireSuccess("dbus-send of the monitor's marker")
        try await waitForLog(toContain: marker, what: "the marker signal")
        child.send(SIGTERM)
        _ = await child.exitStatus()
        defer { try? FileManager.default.removeItem(at: log) }
        return try String(contentsOf: log, encoding: .utf8)
    }
}
