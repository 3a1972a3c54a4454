import Foundation
import KeyringTestSupport
import Testing

extension KeyringTests {
    /// The session bus dies (its daemon killed) under a running observation: `keyring-auth watch`
    /// says so and exits 4; an `Auth` stops live sync and logs why. Each runs on a bus of its own.
    @Suite struct BusLoss {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        @Test func watchExitsFourWithOneLineWhenTheBusGoesAway() async throws {
            let bus = try await PrivateBus(harness: harness)
            defer { bus.stop() }
            let id = String(UUID().uuidString.prefix(8))
            let watch = try LineChannel(
                [try Harness.product("keyring-auth"), "watch", "--group", uniqueGroup().rawValue, "--api-key", "AIza-bus-\(id)",
                 "--app-id", "1:42:linux:bus-\(id)"],
                environment: bus.environment)
            #expect(try await watch.nextLine().contains(" now no user"))

            await bus.kill()
            // Generous: a watch that no longer notices is killed after 10 s and fails here.
            let status = await watch.finish(within: .seconds(10))
            #expect(status == 4, "\(watch.standardError)")
            let lines = watch.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("keyring-auth: ") && lines[0].contains("session bus"), "\(watch.standardError)")
        }

        @Test func liveSyncEndsAndIsLoggedWhenTheBusGoesAway() async throws {
            let bus = try await PrivateBus(harness: harness)
            defer { bus.stop() }
            let app = try LineChannel(
                [try Harness.product("auth-probe"), String(UUID().uuidString.prefix(8)), "A", "session", uniqueGroup().rawValue],
                environment: bus.environment)
            #expect(try await app.nextLine { $0.hasPrefix("ready") } == "ready live=true")

            await bus.kill()
            // The warning is the app's log line (standard error); a bounded wait for it.
            let deadline = ContinuousClock.now + .seconds(10)
            while !app.standardError.contains("Live sync stopped"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(app.standardError.contains("Live sync stopped"), "\(app.standardError.suffix(3000))")
            app.send("live")
            #expect(try await app.nextLine { $0.hasPrefix("done") } == "done live=false")
            _ = await app.finish()
        }
    }
}
