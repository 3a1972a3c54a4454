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
/// (what `Benchmarks/run` runs). Progress goes to standard error.
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
        guard rounds >= 1, calls >= 1, size >= 10, unrelatedItems >= 0, processRuns >= 1, changes >= 1 else {
            throw ValidationError("--rounds, --calls, --process-runs and --changes take 1 or more, --size 10 or more")
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
        progress("Starting the clients")
        let clients = try await startClients()
        let calls = self.calls
        // Python keyring is an order of magnitude slower; fewer calls keep its rounds as long as the others'.
        func count(_ client: BenchClient) -> Int { client.name == "Python keyring" ? max(1, calls / 5) : calls }

        progress("Writes and reads of one item: \(rounds) interleaved rounds")
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

        progress("Auth.currentUser and a signed-in user for the whole-process runs")
        let inProcess = try await InProcessReads.measure()
        let commands = timedCommands(inProcess)
        let processes = try await wholeProcesses(commands.reads)
        let launches = try await wholeProcesses(commands.noBus)

        progress("Adding \(unrelatedItems) unrelated items")
        let libsecret = clients[0]
        if unrelatedItems > 0 { _ = try await libsecret.command("fill \(unrelatedItems)", within: .seconds(600)) }
        progress("Reads among \(unrelatedItems) other items: \(rounds) interleaved rounds")
        var crowdedReads: [String: [Double]] = [:]
        for round in 0..<rounds {
            for client in clients.rotated(by: round) {
                crowdedReads[client.name, default: []].append(try await client.rate("read", count(client)))
            }
        }
        let crowdedProcesses = try await wholeProcesses(commands.reads)
        for client in clients { _ = await client.channel.finish() }

        progress("Propagation between two apps: \(changes) changes")
        let propagation = try await Propagation.measure(changes: changes, warmup: 10)

        try await printReport(
            clients: clients, writes: writes, reads: reads, crowdedReads: crowdedReads, inProcess: inProcess,
            processes: processes, crowdedProcesses: crowdedProcesses, launches: launches, commands: commands,
            propagation: propagation)
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
    private struct TimedCommand {
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

    private func printReport(
        clients: [BenchClient], writes: [String: [Double]], reads: [String: [Double]], crowdedReads: [String: [Double]],
        inProcess: InProcessReads, processes: [String: [Double]], crowdedProcesses: [String: [Double]],
        launches: [String: [Double]], commands: (reads: [TimedCommand], noBus: [TimedCommand]),
        propagation: (fromWrite: [Double], fromStart: [Double])
    ) async throws {
        let baseline = clients[0].name
        func ratio(_ figures: [String: [Double]], _ name: String) -> String {
            String(format: "%.2f×", figures[name]!.median / figures[baseline]!.median)
        }
        func rate(_ figures: [String: [Double]], _ name: String) -> String {
            String(format: "%.0f", figures[name]!.median)
        }
        let versions = clients.filter { $0.version != "this-build" }.map { "\($0.name) \($0.version)" }
        let reruns = BenchClient.sessionBugReruns.withLock { $0 }
        let sessionBugNote = reruns.isEmpty ? "" : "\n\nBatches sent again after KWallet's session bug (KDE bug 514194) failed them: "
            + reruns.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "."
        print("""
            ## KeyringAuth benchmarks

            \(Date().formatted(.iso8601.year().month().day())) · \(ProcessInfo.processInfo.activeProcessorCount) cores, \
            \(Machine.processor), Linux \(Machine.kernel) · \(Machine.provider) · \
            \(versions.joined(separator: ", ")) · \(await Machine.version(of: python)) · release build

            ### One item, warm connection (calls per second: median of \(rounds) interleaved rounds; ×: against libsecret in C)

            | Client | writes/s | × | reads/s | × | reads/s among \(unrelatedItems) other items | × |
            |---|---:|---:|---:|---:|---:|---:|
            """)
        for client in clients {
            let name = client.name
            print("| \(name) | \(rate(writes, name)) | \(ratio(writes, name)) | \(rate(reads, name)) | \(ratio(reads, name)) "
                + "| \(rate(crowdedReads, name)) | \(ratio(crowdedReads, name)) |")
        }

        let tool = "secret-tool lookup"
        func processRow(_ name: String) -> String {
            let (plain, crowded) = (processes[name]!, crowdedProcesses[name]!)
            return String(
                format: "| `%@` | %.1f | %.1f | %.2f× | %.1f | %.2f× |", name, plain.median, plain.percentile(0.9),
                plain.median / processes[tool]!.median, crowded.median, crowded.median / crowdedProcesses[tool]!.median)
        }
        func launchRow(_ name: String) -> String {
            let times = launches[name]!
            return String(
                format: "| `%@` | %.1f | %.1f | %.2f× |", name, times.median, times.percentile(0.9),
                times.median / launches["secret-tool --version"]!.median)
        }
        print("""

            ### Reading one item from a new process (milliseconds, \(processRuns) runs each, alternating; ×: against secret-tool)

            | Command | median | p90 | × | median among \(unrelatedItems) other items | × |
            |---|---:|---:|---:|---:|---:|
            \(commands.reads.map { processRow($0.name) }.joined(separator: "\n"))

            ### Starting without D-Bus (milliseconds, \(processRuns) runs each, alternating; ×: against secret-tool --version)

            | Command | median | p90 | × |
            |---|---:|---:|---:|
            \(commands.noBus.map { launchRow($0.name) }.joined(separator: "\n"))

            ### In one process

            | Read | cost | keychain calls |
            |---|---:|---:|
            \(String(format: "| `auth.currentUser` | %.0f ns | %d in %d reads |", inProcess.currentUserNanoseconds, inProcess.currentUserKeychainCalls, InProcessReads.currentUserReads))
            \(String(format: "| `auth.getStoredUser(forAccessGroup:)` | %.0f µs | %d in %d reads |", inProcess.storedUserMicroseconds, inProcess.storedUserKeychainCalls, InProcessReads.storedUserReads))

            ### Propagation between two running apps (\(propagation.fromWrite.count) changes; milliseconds to app B's listener)

            Every write (warm-up included) was reported once by app B's store and once to its listener.\(sessionBugNote)
            "From the change's start" adds app A's token refresh over loopback HTTP and its write: a write that
            returns sooner can leave the provider busy with it for longer, which the first row then counts.

            | from | median | p90 | p99 | max |
            |---|---:|---:|---:|---:|
            \(String(format: "| app A's write returning | %.2f | %.2f | %.2f | %.2f |", propagation.fromWrite.median, propagation.fromWrite.percentile(0.9), propagation.fromWrite.percentile(0.99), propagation.fromWrite.max()!))
            \(String(format: "| app A's change starting | %.2f | %.2f | %.2f | %.2f |", propagation.fromStart.median, propagation.fromStart.percentile(0.9), propagation.fromStart.percentile(0.99), propagation.fromStart.max()!))
            """)
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
