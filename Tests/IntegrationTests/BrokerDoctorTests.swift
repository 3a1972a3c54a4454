import Foundation
import KeyringTestSupport
import Subprocesses
import Testing

extension KeyringTests.Broker {
    /// `keyring-auth doctor` says whether the broker runs, would be started by the bus, or is not installed on this bus
    /// (and then how to install it); none of these is a failure of the keyring.
    @Test func doctorSaysWhetherTheBrokerIsInstalled() async throws {
        let broker = try await BrokerFixture.start()
        let cli = try Harness.product("keyring-auth")
        func brokerCheck() async throws -> (line: String, status: Int32, json: [String: Any]) {
            let text = try await Subprocess.run(cli, ["doctor"], limit: .seconds(60))
            let line = text.output.split(separator: "\n").first { $0.contains(" broker: ") }.map(String.init) ?? ""
            let json = try await Subprocess.run(cli, ["doctor", "--json"], limit: .seconds(60))
            let checks = (try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])?["checks"] as? [[String: Any]] ?? []
            return (line, text.status, checks.first { $0["name"] as? String == "broker" } ?? [:])
        }
        let installed = try await brokerCheck()
        #expect(installed.line.hasPrefix("ok   broker: ") && installed.line.contains("is installed"), "\(installed.line)")
        #expect(installed.status == 0 && installed.json["ok"] as? Bool == true, "\(installed.json)")

        try await broker.call("GetUser").requireSuccess("GetUser")
        let running = try await brokerCheck()
        #expect(running.line.contains("runs on this bus"), "\(running.line)")

        try await broker.stopBroker()
        let services = try #require(ProcessInfo.processInfo.environment["KEYRING_AUTH_HARNESS_SERVICES"])
        try FileManager.default.removeItem(atPath: "\(services)/\(BrokerFixture.name).service")
        try await broker.busCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig", [])
            .requireSuccess("ReloadConfig")
        let missing = try await brokerCheck()
        #expect(missing.line.contains("is not installed on this bus") && missing.line.contains("scripts/install"), "\(missing.line)")
        #expect(missing.status == 0, "a keyring without the broker is still healthy")
    }
}
