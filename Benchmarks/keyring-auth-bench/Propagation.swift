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

        let appB = try LineChannel([
            "/proc/self/exe", "propagation-listener", "--group", group, "--api-key", options.apiKey,
            "--emulator", "\(address)",
        ])
        guard try await appB.nextLine(within: .seconds(60)) == "ready" else {
            throw ValidationError("the listening app did not start: \(appB.standardError)")
        }

        var latencies: [Double] = []
        var fromStart: [Double] = []
        for index in 0..<(warmup + changes) {
            let started = monotonicNanoseconds()
            _ = try await user.getIDToken(forcingRefresh: true)
            let written = monotonicNanoseconds()
            let line = try await appB.nextLine(within: .seconds(60))
            guard let fired = line.split(separator: " ").last.flatMap({ UInt64($0) }) else {
                throw ValidationError("unexpected line from the listening app: \(line)")
            }
            if index >= warmup {
                latencies.append((Double(fired) - Double(written)) / 1_000_000)
                fromStart.append((Double(fired) - Double(started)) / 1_000_000)
            }
        }
        // A last write of another item of the group: app B reports its counts once it sees it,
        // after every signal sent before it.
        let marker = KeychainKey(service: "keyring-auth-bench", account: "end-marker", accessGroup: try AccessGroup(group))
        try await SecretServiceStore().setData(Data("end".utf8), for: marker, label: "keyring-auth-bench end marker")
        let counts = try await appB.nextLine(within: .seconds(60))
        _ = await appB.finish()
        _ = try? await SecretServiceStore().removeData(for: marker)
        guard counts == "counts stored=\(warmup + changes) fired=\(warmup + changes)" else {
            throw ValidationError("\(warmup + changes) writes, but app B reported \(counts)")
        }
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

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
