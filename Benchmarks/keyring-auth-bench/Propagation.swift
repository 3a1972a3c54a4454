import ArgumentParser
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import SecretKeychain
import Subprocesses
import Synchronization

/// Cross-app propagation: app A (this process) refreshes the shared user's token, which writes the
/// group's item; app B (a second process, live sync on) fires its ID-token listener. The latency is
/// from A's call returning (the write is its last step) to B's listener being called, both read on
/// the system-wide monotonic clock; and, since a write that returns sooner can leave the provider
/// busy with it for longer, also from A's call starting (the token refresh over loopback HTTP, then
/// the write) to B's listener. Changes are made one at a time: each waits for the previous one
/// to arrive, so none is folded into another. At the end the counts are checked: app B's store
/// reported the user's item stored once per write, and its listener fired once per write, on every
/// provider (KWallet announces one write with up to three signals).
struct Propagation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure how long a change in one app takes to reach another app's listener.")

    @Option(help: "How many changes to measure.")
    var changes = 500

    @Option(help: "Changes made first and not counted.")
    var warmup = 10

    func validate() throws {
        guard changes >= 1, warmup >= 0 else { throw ValidationError("--changes takes 1 or more, --warmup 0 or more") }
    }

    func run() async throws {
        let (latencies, fromStart) = try await Self.measure(changes: changes, warmup: warmup)
        print("Propagation to app B's ID-token listener (\(changes) changes, \(warmup) warm-up, two processes):")
        for (from, values) in [("app A's write returning", latencies), ("app A's change starting", fromStart)] {
            print("  from \(from): " + String(format: "median %.2f ms   p90 %.2f ms   p99 %.2f ms   min %.2f ms   max %.2f ms",
                         values.percentile(0.5), values.percentile(0.9), values.percentile(0.99), values.min()!, values.max()!))
        }
        print("  each of the \(warmup + changes) writes was reported once by app B's store and once to its listener")
        print("  machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Machine.provider)")
    }

    /// The latencies of `changes` changes in milliseconds, after `warmup` changes not counted: from
    /// app A's write returning, and from app A's change starting.
    static func measure(changes: Int, warmup: Int) async throws -> (fromWrite: [Double], fromStart: [Double]) {
        let appA = try await BenchApp.signIn(name: "a", store: SecretServiceStore(), liveSync: false)
        let (group, options, address, user) = (appA.group, appA.options, appA.address, appA.user)

        let appB = try await PropagationListener.start(group: group, apiKey: options.apiKey, emulator: "\(address)")

        var latencies: [Double] = []
        var fromStart: [Double] = []
        for index in 0..<(warmup + changes) {
            let started = monotonicNanoseconds()
            _ = try await user.getIDToken(forcingRefresh: true)
            let written = monotonicNanoseconds()
            let fired = try await PropagationListener.nextFiring(of: appB)
            if index >= warmup {
                latencies.append((Double(fired) - Double(written)) / 1_000_000)
                fromStart.append((Double(fired) - Double(started)) / 1_000_000)
            }
        }
        try await PropagationListener.finish([appB], group: group, writes: warmup + changes)
        try? appA.auth.signOut()
        await appA.emulator.stop()
        return (latencies, fromStart)
    }
}

/// App B of the propagation benchmark: prints `ready`, then `fired <monotonic ns>` each time its
/// ID-token listener is called with a signed-in user, until its standard input ends.
struct PropagationListener: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "propagation-listener", shouldDisplay: false)

    @Option var group: String
    @Option var apiKey: String
    @Option var emulator: String

    func run() async throws {
        let logger = benchLogger("keyring-auth-bench.listener")
        let options = AuthAppOptions(appName: "bench-b", apiKey: apiKey, appID: "1:42:linux:bench-b-\(UUID().uuidString.prefix(8))", projectID: "demo")
        let appB = Auth(configuration: AuthConfiguration(
            options: options, store: SecretServiceStore(), backend: IdentityToolkitBackend(apiKey: apiKey, endpoint: try .emulator(hostAndPort: emulator)),
            logger: logger))
        try appB.useUserAccessGroup(group)
        let armed = Atomic(false)
        let fired = Atomic(0)
        appB.addIDTokenDidChangeListener { _, user in
            let now = monotonicNanoseconds()
            guard armed.load(ordering: .acquiring), user != nil else { return }
            fired.add(1, ordering: .relaxed)
            FileHandle.standardOutput.write(Data("fired \(now)\n".utf8))
        }
        // The store's own reports of the group's user item (the group holds no other item but
        // app A's end marker), counted until the end marker arrives.
        let stored = Atomic(0)
        let observation = try await appB.configuration.store.observeChanges(in: .group(try AccessGroup(group))) { change in
            if change.key.service != "keyring-auth-bench", change.kind == .stored, armed.load(ordering: .acquiring) {
                stored.add(1, ordering: .relaxed)
            } else if change.key.account == "end-marker", change.kind == .stored {
                appB.configuration.callbackQueue.sync {}
                let counts = "counts stored=\(stored.load(ordering: .relaxed)) fired=\(fired.load(ordering: .relaxed))"
                FileHandle.standardOutput.write(Data((counts + "\n").utf8))
            }
        }
        defer { observation.cancel() }
        // The listener's first call (the user loaded at start) is not a change: skip it.
        appB.configuration.callbackQueue.sync {}
        armed.store(true, ordering: .releasing)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        while readLine() != nil {}
    }
}

extension PropagationListener {
    /// Starts a listening app (this program's `propagation-listener`) in `group`, and answers it once it is ready.
    static func start(group: String, apiKey: String, emulator: String) async throws -> LineChannel {
        let app = try LineChannel([
            "/proc/self/exe", "propagation-listener", "--group", group, "--api-key", apiKey, "--emulator", emulator,
        ])
        guard try await app.nextLine(within: .seconds(60)) == "ready" else {
            throw ValidationError("the listening app did not start: \(app.standardError)")
        }
        return app
    }

    /// When a listening app's next `fired NANOSECONDS` line says it was told, on the monotonic clock.
    static func nextFiring(of app: LineChannel) async throws -> UInt64 {
        let line = try await app.nextLine(within: .seconds(60))
        guard line.hasPrefix("fired "), let fired = line.split(separator: " ").last.flatMap({ UInt64($0) }) else {
            throw ValidationError("unexpected line from a listening app: \(line)")
        }
        return fired
    }

    /// Ends `apps` once each has reported its counts: a last write of another item of the group, which each app
    /// reports once it sees it, after every signal sent before it. Each must have seen `writes` stores of the user's
    /// item and fired its listener as often.
    static func finish(_ apps: [LineChannel], group: String, writes: Int) async throws {
        let marker = KeychainKey(service: "keyring-auth-bench", account: "end-marker", accessGroup: try AccessGroup(group))
        try await SecretServiceStore().setData(Data("end".utf8), for: marker, label: "keyring-auth-bench end marker")
        var reports: [String] = []
        for app in apps {
            reports.append(try await app.nextLine(within: .seconds(60)))
            _ = await app.finish()
        }
        _ = try? await SecretServiceStore().removeData(for: marker)
        for counts in reports where counts != "counts stored=\(writes) fired=\(writes)" {
            throw ValidationError("\(writes) writes, but a listening app reported \(counts)")
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
