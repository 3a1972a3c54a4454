import ArgumentParser
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import SecretKeychain
import Subprocesses
import Synchronization
import SystemSupport

/// Every benchmark, side by side on one daemon, printed as Markdown tables with ratios
/// (what `Benchmarks/run` runs), each table as soon as its part completes. Progress goes to
/// standard error, and so does the part that could not finish, and why (the run then exits 1).
struct All: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every benchmark side by side with libsecret (C), secretstorage and keyring; run through Benchmarks/run.")

    @Option(help: "The libsecret C client (Benchmarks/clients/libsecret-client.c, built by Benchmarks/run).")
    var libsecretClient: String

    @Option(help: "Benchmarks/clients/python-client.py.")
    var pythonClient: String

    @Option(help: "The Python with Debian's python3-secretstorage and python3-keyring.")
    var python = "/usr/bin/python3"

    @Option(help: "The keyring-auth binary to time as a whole process (a release build).")
    var keyringAuth: String

    @Option(help: "keyring-auth built with --static-swift-stdlib (Benchmarks/run builds it); its rows are left out without it.")
    var staticKeyringAuth: String?

    @Option(help: "auth-launch-bench, an app that configures Auth and reads currentUser (a release build).")
    var launchApp: String?

    @Option(help: "auth-launch-bench built with --static-swift-stdlib.")
    var staticLaunchApp: String?

    @Option(help: "store-launch-bench, a program that reads one item with SecretServiceStore alone (a release build).")
    var storeLaunchApp: String?

    @Option(help: "Interleaved rounds; each figure is the median over them.")
    var rounds = 7

    @Option(help: "Calls per client per round.")
    var calls = 100

    @Option(help: "Size of the secret every client writes, in bytes (a stored user is about this size).")
    var size = 1400

    @Option(help: "Unrelated items added to the collection for the second set of reads.")
    var unrelatedItems = 5000

    @Option(help: "Unrelated items the C client adds in one batch (each batch a command of its own, with progress).")
    var fillBatch = 500

    @Option(help: "Seconds one batch of unrelated items may take before the run stops (and says so).")
    var fillBatchLimit = 300

    @Option(name: .customLong("leave-out"), help: ArgumentHelp(
        "A client to leave out of the one-item tables (its name as the tables print it), for example \"Python keyring\" on "
            + "KeePassXC, where its replacing write (a new connection each call, so another client's item) waits for a "
            + "prompt nobody answers headless. Repeatable; libsecret (C), the baseline, stays."))
    var leftOutClients: [String] = []

    @Option(help: "Runs of each whole process.")
    var processRuns = 30

    @Option(help: "Changes for the propagation latency.")
    var changes = 200

    func validate() throws {
        guard rounds >= 1, calls >= 1, size >= 10, unrelatedItems >= 0, processRuns >= 1, changes >= 1, fillBatch >= 1,
            fillBatchLimit >= 1
        else {
            throw ValidationError(
                "--rounds, --calls, --process-runs, --changes, --fill-batch and --fill-batch-limit take 1 or more, --size 10 or more")
        }
        let known = ["SecretServiceStore", "SecretServiceStore (async)", "Python secretstorage", "Python keyring"]
        for name in leftOutClients where !known.contains(name) {
            throw ValidationError("--leave-out takes one of \(known.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(name)\"")
        }
        guard ProcessInfo.processInfo.environment["KEYRING_AUTH_HARNESS_ROOT"] != nil else {
            throw ValidationError(
                "Run this under dbus/with-keyring (Benchmarks/run does): it fills the default collection with "
                    + "\(unrelatedItems) items and must never touch your own keyring.")
        }
    }

    func run() async throws {
        do {
            try await measure()
        } catch let failure as StepFailure {
            progress("stopped at \"\(failure.step)\": \(failure.error)")
            progress("the tables printed above are every part that completed before it")
            throw ExitCode.failure
        }
    }

    /// Each part in turn; its table is printed as soon as it completes, so a part that fails later
    /// (a provider that stops answering, a step past its limit) keeps what came before.
    private func measure() async throws {
        let clients = try await step("Starting the clients") { try await startClients() }
        let calls = self.calls
        // Python keyring is an order of magnitude slower; fewer calls keep its rounds as long as the others'.
        func count(_ client: BenchClient) -> Int { client.name == "Python keyring" ? max(1, calls / 5) : calls }
        await printHeading(clients)

        let (writes, reads) = try await step("Writes and reads of one item: \(rounds) interleaved rounds") {
            var writes: [String: [Double]] = [:]
            var reads: [String: [Double]] = [:]
            for round in 0..<rounds {
                for client in clients.rotated(by: round) {
                    writes[client.name, default: []].append(try await client.rate("write", count(client)))
                }
                for client in clients.rotated(by: round + 1) {
                    reads[client.name, default: []].append(try await client.rate("read", count(client)))
                }
            }
            return (writes, reads)
        }
        printOneItem(clients, writes: writes, reads: reads)

        let inProcess = try await step("Auth.currentUser and a signed-in user for the whole-process runs") {
            try await InProcessReads.measure()
        }
        printInProcess(inProcess)
        let commands = timedCommands(inProcess)
        let processes = try await step("Whole processes reading one item") { try await wholeProcesses(commands.reads) }
        printProcesses(commands.reads, processes)
        let launches = try await step("Whole processes without D-Bus") { try await wholeProcesses(commands.noBus) }
        printLaunches(commands.noBus, launches)

        let filling = try await step("Adding \(unrelatedItems) unrelated items, \(fillBatch) at a time") {
            try await fill(clients[0])
        }
        let crowdedReads = try await step("Reads among \(unrelatedItems) unrelated items: \(rounds) interleaved rounds") {
            var crowdedReads: [String: [Double]] = [:]
            for round in 0..<rounds {
                for client in clients.rotated(by: round) {
                    crowdedReads[client.name, default: []].append(try await client.rate("read", count(client)))
                }
            }
            return crowdedReads
        }
        printCrowdedReads(clients, filling: filling, reads: reads, crowdedReads: crowdedReads)
        let crowdedProcesses = try await step("Whole processes reading one item among \(unrelatedItems) unrelated items") {
            try await wholeProcesses(commands.reads)
        }
        printCrowdedProcesses(commands.reads, processes, crowdedProcesses)
        for client in clients { _ = await client.channel.finish() }

        let propagation = try await step("Propagation between two apps: \(changes) changes") {
            try await Propagation.measure(changes: changes, warmup: 10)
        }
        printPropagation(propagation)
    }

    /// Runs one part of the benchmark, announced on standard error; its failure names it.
    private func step<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        progress(name)
        do {
            return try await body()
        } catch {
            throw StepFailure(step: name, error: error)
        }
    }

    /// The unrelated items, added by the C client in batches of `fillBatch`, each within
    /// `fillBatchLimit` seconds, with progress after each.
    private func fill(_ libsecret: BenchClient) async throws -> Filling {
        let started = monotonicNanoseconds()
        var added = 0
        while added < unrelatedItems {
            let batch = min(fillBatch, unrelatedItems - added)
            let nanoseconds: UInt64
            do {
                nanoseconds = try await libsecret.command("fill \(batch) \(added)", within: .seconds(fillBatchLimit))
            } catch {
                throw ValidationError(
                    "items \(added)..<\(added + batch) (\(added) were in place) did not come within the batch's limit of "
                        + "\(fillBatchLimit) s (--fill-batch-limit), or failed: \(error)")
            }
            added += batch
            progress(String(
                format: "%d of %d unrelated items added (the last %d in %.1f s)", added, unrelatedItems, batch,
                Double(nanoseconds) / 1_000_000_000))
        }
        return Filling(items: added, seconds: Double(monotonicNanoseconds() - started) / 1_000_000_000)
    }

    private func startClients() async throws -> [BenchClient] {
        let size = String(size)
        let bench = "/proc/self/exe"
        let commands: [(String, [String])] = [
            ("libsecret (C)", [libsecretClient, size]),
            ("SecretServiceStore", [bench, "store-worker", "--api", "sync", "--size", size]),
            ("SecretServiceStore (async)", [bench, "store-worker", "--api", "async", "--size", size]),
            ("Python secretstorage", [python, pythonClient, "secretstorage", size]),
            ("Python keyring", [python, pythonClient, "keyring", size]),
        ]
        var clients: [BenchClient] = []
        for (name, arguments) in commands where !leftOutClients.contains(name) {
            clients.append(try await BenchClient.start(name: name, arguments))
        }
        return clients
    }

    /// A whole process timed from start to exit: its row's name, its arguments, and what its
    /// output must contain when run once first (the timed runs must do the real work).
    struct TimedCommand {
        let name: String
        let arguments: [String]
        let expectedOutput: String?
        /// The exit status of a run that did its work (`secret-tool --version` prints its usage
        /// and exits 2: libsecret 0.20's secret-tool has no `--version`).
        var status: Int32 = 0
    }

    /// The whole processes of the start-up tables: the reads (`secret-tool lookup` first, the
    /// baseline) and the launches that touch no D-Bus (`secret-tool --version` first).
    private func timedCommands(_ signedIn: InProcessReads) -> (reads: [TimedCommand], noBus: [TimedCommand]) {
        let identity = ["--api-key", signedIn.options.apiKey, "--app-id", signedIn.options.appID]
        let app = [signedIn.options.apiKey, signedIn.options.appID, signedIn.options.projectID]
        var reads = [TimedCommand(name: "secret-tool lookup", arguments: ["secret-tool", "lookup", "client", "libsecret"], expectedOutput: nil)]
        var noBus = [TimedCommand(name: "secret-tool --version", arguments: ["secret-tool", "--version"], expectedOutput: nil, status: 2)]
        for (binary, suffix) in [(keyringAuth, ""), (staticKeyringAuth, Self.staticSuffix)] {
            guard let binary else { continue }
            reads.append(TimedCommand(
                name: "keyring-auth show" + suffix, arguments: [binary, "show", "--group", signedIn.group] + identity,
                expectedOutput: signedIn.uid))
            noBus.append(TimedCommand(name: "keyring-auth --help" + suffix, arguments: [binary, "--help"], expectedOutput: "USAGE"))
        }
        for (binary, suffix) in [(launchApp, ""), (staticLaunchApp, Self.staticSuffix)] {
            guard let binary else { continue }
            reads.append(TimedCommand(name: Self.launchAppName + suffix, arguments: [binary] + app, expectedOutput: signedIn.uid))
        }
        if let storeLaunchApp {
            reads.append(TimedCommand(
                name: "store alone: SecretServiceStore read",
                arguments: [storeLaunchApp, signedIn.options.apiKey, "firebase_auth_firebase_user", signedIn.group],
                expectedOutput: "bytes"))
        }
        return (reads, noBus)
    }

    private static let staticSuffix = " (--static-swift-stdlib)"
    private static let launchAppName = "app: Auth.configure + currentUser"

    /// Every command of `commands`, `processRuns` times each, alternating; milliseconds by row name.
    private func wholeProcesses(_ commands: [TimedCommand]) async throws -> [String: [Double]] {
        for command in commands {
            let result = try await Subprocess.run(command.arguments[0], Array(command.arguments.dropFirst()))
            if command.status == 0 { try result.requireSuccess(command.name) }
            if let expected = command.expectedOutput, !result.output.contains(expected) {
                throw ValidationError("\(command.name) did not print \(expected): \(result.output)")
            }
            if command.name == "secret-tool lookup", result.standardOutput.count != size {
                throw ValidationError("secret-tool lookup found no benchmark item")
            }
        }
        progress("Whole processes: \(processRuns) runs each of \(commands.map(\.name).joined(separator: ", ")), alternating")
        var times: [String: [Double]] = [:]
        for _ in 0..<processRuns {
            for command in commands {
                times[command.name, default: []].append(try await timedRun(command.arguments, status: command.status))
            }
        }
        return times
    }

    /// Milliseconds from starting `arguments` to its exit, its output discarded.
    private func timedRun(_ arguments: [String], status expected: Int32 = 0) async throws -> Double {
        let null = URL(fileURLWithPath: "/dev/null")
        let started = monotonicNanoseconds()
        let child = try ChildProcess(arguments, stdin: null, stdout: null, stderr: null)
        let status = await child.exitStatus()
        let elapsed = Double(monotonicNanoseconds() - started) / 1_000_000
        guard status == expected else { throw ValidationError("\(arguments[0]) exited with \(status)") }
        return elapsed
    }
}

/// Progress, on standard error so that standard output is the report alone.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("keyring-auth-bench: \(message)\n".utf8))
}

/// A benchmark client process speaking the line protocol of `Benchmarks/clients/`.
struct BenchClient: Sendable {
    let name: String
    let version: String
    let channel: LineChannel

    static func start(name: String, _ arguments: [String]) async throws -> BenchClient {
        let channel = try LineChannel(arguments)
        let line = try await channel.nextLine(within: .seconds(60))
        let words = line.split(separator: " ")
        guard words.first == "ready" else {
            throw ValidationError("\(name) did not start: \(line) \(channel.standardError)")
        }
        return BenchClient(name: name, version: words.dropFirst(2).joined(separator: " "), channel: channel)
    }

    /// Sends a command and returns the nanoseconds the client reports for it. A batch that KWallet's
    /// session bug failed (KDE bug 514194: about 1 % of sessions; these clients do not retry, as the
    /// store does) is sent again, at most twice, and counted in ``sessionBugReruns``.
    func command(_ command: String, within limit: Duration = .seconds(300)) async throws -> UInt64 {
        var reruns = 0
        while true {
            channel.send(command)
            let line = try await channel.nextLine(within: limit)
            if line.hasPrefix("ok "), let nanoseconds = UInt64(line.dropFirst(3)) { return nanoseconds }
            guard reruns < 2, ProviderQuirk.kwalletSessionBugMessages.contains(where: line.contains) else {
                throw ValidationError("\(name) failed `\(command)`: \(line)")
            }
            reruns += 1
            BenchClient.sessionBugReruns.withLock { $0[name, default: 0] += 1 }
            progress("\(name): `\(command)` failed with KWallet's session bug; sending it again: \(line)")
        }
    }

    /// How many batches of each client were sent again after KWallet's session bug.
    static let sessionBugReruns = Mutex<[String: Int]>([:])

    /// Calls per second over `count` calls of `operation`.
    func rate(_ operation: String, _ count: Int) async throws -> Double {
        Double(count) / (Double(try await command("\(operation) \(count)")) / 1_000_000_000)
    }
}

extension Array {
    /// The elements starting at `offset` (modulo the count), wrapping around.
    func rotated(by offset: Int) -> [Element] {
        guard !isEmpty else { return self }
        let start = offset % count
        return Array(self[start...] + self[..<start])
    }
}
