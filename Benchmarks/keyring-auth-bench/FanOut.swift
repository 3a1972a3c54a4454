import ArgumentParser
import Foundation
import KeyringAuth
import SecretKeychain
import Subprocesses

/// One change told to many running apps of a group: app A (this process) signs in to one of two accounts in turn,
/// which writes the group's user item; Swift apps with live sync (`propagation-listener`, each a process reading the
/// keyring directly) fire their ID-token listeners, and apps watching through the broker
/// (`Benchmarks/clients/broker-watcher.py`, each a process and a Firebase app of its own) get `UserChanged`. Each
/// arrival is timed from app A's sign-in starting, on the machine-wide monotonic clock. Changes are made one at a
/// time: each waits until every app has it. Needs the broker on the session bus (`Benchmarks/broker-fan-out`).
struct FanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fan-out",
        abstract: "Measure how long one change in a group takes to reach many running apps, directly and through the broker.")

    @Option(help: "Benchmarks/clients/broker-watcher.py.")
    var brokerWatcher: String

    @Option(help: "The Python with PyGObject (Gio) for the broker's watchers.")
    var python = "/usr/bin/python3"

    @Option(help: "Swift apps with live sync, each reading the keyring directly.")
    var swiftApps = 8

    @Option(help: "Apps watching the group through the broker.")
    var brokerApps = 8

    @Option(help: "How many changes to measure.")
    var changes = 100

    @Option(help: "Changes made first and not counted.")
    var warmup = 5

    func validate() throws {
        guard changes >= 1, warmup >= 0, swiftApps >= 1, brokerApps >= 1 else {
            throw ValidationError("--changes, --swift-apps and --broker-apps take 1 or more, --warmup 0 or more")
        }
    }

    func run() async throws {
        let appA = try await BenchApp.signIn(name: "fan-out", store: SecretServiceStore(), liveSync: false)
        let (group, apiKey, address) = (appA.group, appA.options.apiKey, "\(appA.address)")
        let accounts = ["fan-out-0@example.com", "fan-out-1@example.com"]
        for account in accounts { _ = try await appA.auth.createUser(withEmail: account, password: "fan-out-password") }

        var swift: [LineChannel] = []
        for _ in 0..<swiftApps { swift.append(try await PropagationListener.start(group: group, apiKey: apiKey, emulator: address)) }
        var broker: [LineChannel] = []
        for index in 0..<brokerApps {
            let app = ["apiKey": apiKey, "appID": "1:42:linux:fan-out-broker-\(index)", "projectID": "demo", "emulatorHost": address]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: app, options: .sortedKeys), as: UTF8.self)
            let watcher = try LineChannel([python, brokerWatcher, json, group])
            guard try await watcher.nextLine(within: .seconds(60)) == "ready" else {
                throw ValidationError("a watcher through the broker did not start: \(watcher.standardError)")
            }
            broker.append(watcher)
        }

        var (direct, throughBroker, last): ([Double], [Double], [Double]) = ([], [], [])
        for index in 0..<(warmup + changes) {
            let started = monotonicNanoseconds()
            _ = try await appA.auth.signIn(withEmail: accounts[index % 2], password: "fan-out-password")
            var arrivals: (direct: [Double], broker: [Double]) = ([], [])
            for app in swift { arrivals.direct.append(try await Self.delay(of: app, since: started)) }
            for app in broker { arrivals.broker.append(try await Self.delay(of: app, since: started)) }
            guard index >= warmup else { continue }
            direct += arrivals.direct
            throughBroker += arrivals.broker
            last.append((arrivals.direct + arrivals.broker).max()!)
        }
        try await PropagationListener.finish(swift, group: group, writes: warmup + changes)
        for app in broker {
            _ = await app.finish()
            let counts = try await app.nextLine()
            guard counts == "counts fired=\(warmup + changes)" else {
                throw ValidationError("\(warmup + changes) sign-ins, but a watcher through the broker reported \(counts)")
            }
        }
        try? appA.auth.signOut()
        await appA.emulator.stop()

        print("### One change to \(swiftApps + brokerApps) running apps of a group (\(changes) changes; milliseconds from the change starting)")
        print()
        print("| apps | samples | median | p90 | p99 | max |")
        print("|---|---:|---:|---:|---:|---:|")
        for (label, values) in [
            ("\(swiftApps) Swift apps, live sync (the keyring directly)", direct),
            ("\(brokerApps) apps through the broker (`Watch`, `UserChanged`)", throughBroker),
            ("the last of the \(swiftApps + brokerApps) apps, each change", last),
        ] {
            print("| \(label) | \(values.count) | " + String(format: "%.2f | %.2f | %.2f | %.2f |", values.median,
                values.percentile(0.9), values.percentile(0.99), values.max()!))
        }
        print()
        print("Each of the \(warmup + changes) sign-ins (\(warmup) warm-up) was reported once by every Swift app's store and once to "
            + "its listener, and once to every watcher through the broker.")
    }

    /// How long after `started` an app said it was told (milliseconds); an arrival before the change started is one
    /// change told twice.
    private static func delay(of app: LineChannel, since started: UInt64) async throws -> Double {
        let fired = try await PropagationListener.nextFiring(of: app)
        guard fired >= started else { throw ValidationError("an app was told of one change twice") }
        return (Double(fired) - Double(started)) / 1_000_000
    }
}
