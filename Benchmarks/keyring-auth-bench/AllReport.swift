import Foundation

/// A part of `keyring-auth-bench all` that could not finish: which one, and why.
struct StepFailure: Error {
    let step: String
    let error: any Error
}

/// How the unrelated items were added.
struct Filling {
    let items: Int
    let seconds: Double
}

/// Writes `text` and a newline to standard output at once (unbuffered), so that every table printed
/// so far is kept when the run stops later.
func report(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// The tables of `keyring-auth-bench all`, one per part, in Markdown.
extension All {
    func printHeading(_ clients: [BenchClient]) async {
        let versions = clients.filter { $0.version != "this-build" }.map { "\($0.name) \($0.version)" }
        report("""
            ## KeyringAuth benchmarks

            \(Date().formatted(.iso8601.year().month().day())) · \(ProcessInfo.processInfo.activeProcessorCount) cores, \
            \(Machine.processor), Linux \(Machine.kernel) · \(Machine.provider) · \
            \(versions.joined(separator: ", ")) · \(await Machine.version(of: python)) · release build
            """)
    }

    func printOneItem(_ clients: [BenchClient], writes: [String: [Double]], reads: [String: [Double]]) {
        let rows = clients.map { client in
            let name = client.name
            return "| \(name) | \(rate(writes, name)) | \(ratio(writes, name, clients)) | \(rate(reads, name)) "
                + "| \(ratio(reads, name, clients)) |"
        }
        report("""

            ### One item, warm connection, no unrelated items (calls per second: median of \(rounds) interleaved rounds; ×: against libsecret in C)

            | Client | writes/s | × | reads/s | × |
            |---|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))\(sessionBugNote)
            """)
    }

    func printInProcess(_ inProcess: InProcessReads) {
        report("""

            ### In one process, no unrelated items

            | Read | cost | keychain calls |
            |---|---:|---:|
            \(String(format: "| `auth.currentUser` | %.0f ns | %d in %d reads |", inProcess.currentUserNanoseconds, inProcess.currentUserKeychainCalls, InProcessReads.currentUserReads))
            \(String(format: "| `auth.getStoredUser(forAccessGroup:)` | %.0f µs | %d in %d reads |", inProcess.storedUserMicroseconds, inProcess.storedUserKeychainCalls, InProcessReads.storedUserReads))
            """)
    }

    /// One Markdown row per command: its median and p90 in milliseconds, and its median against the first command's.
    private func timeRows(_ commands: [TimedCommand], _ times: [String: [Double]]) -> [String] {
        let baseline = times[commands[0].name]!.median
        return commands.map { command in
            let runs = times[command.name]!
            return String(format: "| `%@` | %.1f | %.1f | %.2f× |", command.name, runs.median, runs.percentile(0.9), runs.median / baseline)
        }
    }

    func printProcesses(_ commands: [TimedCommand], _ processes: [String: [Double]]) {
        let rows = timeRows(commands, processes)
        report("""

            ### Reading one item from a new process, no unrelated items (milliseconds, \(processRuns) runs each, alternating; ×: against secret-tool)

            | Command | median | p90 | × |
            |---|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """)
    }

    func printLaunches(_ commands: [TimedCommand], _ launches: [String: [Double]]) {
        let rows = timeRows(commands, launches)
        report("""

            ### Starting without D-Bus (milliseconds, \(processRuns) runs each, alternating; ×: against secret-tool --version)

            | Command | median | p90 | × |
            |---|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """)
    }

    func printCrowdedReads(
        _ clients: [BenchClient], filling: Filling, reads: [String: [Double]], crowdedReads: [String: [Double]]
    ) {
        let rows = clients.map { client in
            let name = client.name
            return "| \(name) | \(rate(reads, name)) | \(ratio(reads, name, clients)) | \(rate(crowdedReads, name)) "
                + "| \(ratio(crowdedReads, name, clients)) |"
        }
        report("""

            ### Among \(filling.items) unrelated items

            The C client added \(filling.items) unrelated items (another schema) to the same collection, \
            \(fillBatch) at a time, in \(String(format: "%.0f", filling.seconds)) s.

            One item, warm connection (reads per second: median of \(rounds) interleaved rounds; ×: against libsecret in C):

            | Client | reads/s, no unrelated items | × | reads/s among \(filling.items) unrelated items | × |
            |---|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))\(sessionBugNote)
            """)
    }

    func printCrowdedProcesses(
        _ commands: [TimedCommand], _ processes: [String: [Double]], _ crowdedProcesses: [String: [Double]]
    ) {
        let (baseline, crowdedBaseline) = (processes[commands[0].name]!.median, crowdedProcesses[commands[0].name]!.median)
        let rows = commands.map { command in
            let (plain, crowded) = (processes[command.name]!, crowdedProcesses[command.name]!)
            return String(
                format: "| `%@` | %.1f | %.2f× | %.1f | %.1f | %.2f× |", command.name, plain.median, plain.median / baseline,
                crowded.median, crowded.percentile(0.9), crowded.median / crowdedBaseline)
        }
        report("""

            Reading one item from a new process (milliseconds, \(processRuns) runs each, alternating; ×: against secret-tool):

            | Command | median, no unrelated items | × | median among \(unrelatedItems) unrelated items | p90 | × |
            |---|---:|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """)
    }

    func printPropagation(_ propagation: (fromWrite: [Double], fromStart: [Double])) {
        report("""

            ### Propagation between two running apps (\(propagation.fromWrite.count) changes among \(unrelatedItems) unrelated items; milliseconds to app B's listener)

            Every write (warm-up included) was reported once by app B's store and once to its listener.\(sessionBugNote)
            "From the change's start" adds app A's token refresh over loopback HTTP and its write: a write that
            returns sooner can leave the provider busy with it for longer, which the first row then counts.

            | from | median | p90 | p99 | max |
            |---|---:|---:|---:|---:|
            \(String(format: "| app A's write returning | %.2f | %.2f | %.2f | %.2f |", propagation.fromWrite.median, propagation.fromWrite.percentile(0.9), propagation.fromWrite.percentile(0.99), propagation.fromWrite.max()!))
            \(String(format: "| app A's change starting | %.2f | %.2f | %.2f | %.2f |", propagation.fromStart.median, propagation.fromStart.percentile(0.9), propagation.fromStart.percentile(0.99), propagation.fromStart.max()!))
            """)
    }

    /// The median calls per second of `name`.
    private func rate(_ figures: [String: [Double]], _ name: String) -> String {
        String(format: "%.0f", figures[name]!.median)
    }

    /// `name`'s median against the baseline's (the first client, libsecret in C).
    private func ratio(_ figures: [String: [Double]], _ name: String, _ clients: [BenchClient]) -> String {
        String(format: "%.2f×", figures[name]!.median / figures[clients[0].name]!.median)
    }

    /// The batches sent again so far after KWallet's session bug, as a sentence, or nothing.
    private var sessionBugNote: String {
        let reruns = BenchClient.sessionBugReruns.withLock { $0 }
        return reruns.isEmpty ? "" : "\n\nBatches sent again after KWallet's session bug (KDE bug 514194) failed them: "
            + reruns.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "."
    }
}
