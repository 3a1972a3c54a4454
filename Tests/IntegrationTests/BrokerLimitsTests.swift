import Foundation
import KeyringTestSupport
import Subprocesses
import SystemSupport
import Testing

extension KeyringTests.Broker {
    /// The broker under its systemd unit's limits (`TasksMax=256`, `MemoryMax=512M` as cgroups of this test's own,
    /// `LimitNOFILE=1024` as its descriptor limit), activated as the bus activates it, while one host process floods it
    /// from 12 connections: 384 `Keychain1.Follow` of distinct groups, 48 `Watch` and 48 `GetUser` of distinct apps.
    /// Every call of the flood is answered (refused ones with the broker's own errors, none left waiting); meanwhile
    /// another app signs in and reads its user; and the broker that served them is the one that was started.
    @Test func aFloodUnderTheUnitsLimitsIsRefusedWhileOtherAppsAreServed() async throws {
        let fixture = try await BrokerFixture.start()
        let limits = try BrokerLimits(name: "keyring-auth-broker-limits-\(UUID().uuidString.prefix(8))")
        do {
            try await Self.flood(fixture, under: limits)
        } catch {
            await Self.stop(fixture, leaving: limits)
            throw error
        }
        await Self.stop(fixture, leaving: limits)
    }

    /// Stops the broker and waits for its process to end, then removes the cgroups it was in.
    private static func stop(_ fixture: BrokerFixture, leaving limits: BrokerLimits) async {
        let pid = try? await fixture.brokerPID()
        try? await fixture.stopBroker()
        if let pid {
            _ = try? await Subprocess.run("sh", ["-c", "while kill -0 \(pid) 2>/dev/null; do sleep 0.05; done"], limit: .seconds(30))
        }
        limits.remove()
    }

    private static func flood(_ fixture: BrokerFixture, under limits: BrokerLimits) async throws {
        let launcher = try limits.launcher(in: fixture.harness.root)
        try await fixture.installService(idleTimeout: 120, emulatorHost: fixture.address.description, launcher: [launcher.script])
        try await fixture.call("GetUser").requireSuccess("GetUser, which activates the broker")
        let pid = try #require(try await fixture.brokerPID())
        #expect(limits.holds(pid), "the broker runs in the test's cgroups")
        #expect(BrokerLimits.descriptorLimit(of: pid) == BrokerLimits.descriptors)
        let before = BrokerLimits.usage(of: pid)

        // A host process's flood (Tests/broker-driver/broker_flood.py): 12 connections, each sending at once 32
        // Keychain1.Follow of groups of its own, 4 Watch and 4 GetUser of apps of its own; its connections are held
        // until it is closed.
        let flood = try await FloodingApp(fixture, as: nil, connections: 12)
        let summaryLine = try await flood.ask("burst 32 4 4")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any], "\(summaryLine): \(flood.channel.standardError)")
        let during = BrokerLimits.usage(of: pid)

        // Another app, while the flood's connections hold what they were given.
        let signedIn = try await fixture.call("SignInAnonymously")
        let user = try await fixture.call("GetUser")
        let after = BrokerLimits.usage(of: pid)
        print("""
            broker under its unit's limits: flood \(summaryLine); threads \(before.threads) → \(during.threads) → \(after.threads), \
            descriptors \(before.descriptors) → \(during.descriptors) → \(after.descriptors); cgroups: \(limits.report())
            """)

        #expect(summary["unanswered"] as? Int == 0, "every call of the flood is answered: \(summaryLine)")
        #expect(summary["otherErrors"] as? [String: Int] == [:], "no call fails but by the broker's own refusal: \(summaryLine)")
        #expect((summary["refused"] as? [String: Int])?.values.reduce(0, +) ?? 0 > 0, "the flood meets the broker's bounds: \(summaryLine)")
        #expect(signedIn.status == 0, "another app signs in during the flood: \(signedIn.standardError)")
        #expect(user.status == 0 && user.output.contains("'isAnonymous': <true>"), "and reads its user: \(user.output)\(user.standardError)")
        #expect(try await fixture.brokerPID() == pid, "the broker that served the flood still runs")
        #expect(kill(pid, 0) == 0)
        let log = (try? String(contentsOfFile: launcher.log, encoding: .utf8)) ?? ""
        #expect(!log.contains("ERROR") && !log.contains("Fatal error"), "the broker logged no abort: \(log.suffix(2000))")
        #expect(await flood.finish() == 0, "\(flood.channel.standardError)")
    }
}

/// The limits of the broker's systemd user unit, made by hand: a pids cgroup (`TasksMax=`) and a memory cgroup
/// (`MemoryMax=`) under this process's own (cgroup v1's pids and memory hierarchies, or v2's unified one), and the
/// descriptor limit (`LimitNOFILE=`), which the launcher sets before it runs the broker.
struct BrokerLimits {
    static let tasks = 256
    static let descriptors = 1024
    static let memory = 512 * 1024 * 1024

    /// The cgroups made, each with the files that limit it.
    let folders: [String]

    /// Makes the cgroups, or throws saying why they cannot be made (this test needs root and the pids and memory
    /// controllers, as CI has).
    init(name: String) throws {
        let own = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8).split(separator: "\n")
        func ownPath(_ controller: String) -> String? {
            own.lazy.map { $0.split(separator: ":", maxSplits: 2).map(String.init) }
                .first { $0.count == 3 && $0[1].split(separator: ",").contains(Substring(controller)) }?[2]
        }
        var made: [String] = []
        func make(_ folder: String, _ settings: [(String, String)]) throws {
            guard mkdir(folder, 0o755) == 0 else {
                throw BrokerTestFailure(description: "cannot make the cgroup \(folder) (\(String(cString: strerror(errno)))): this test runs "
                    + "the broker under its unit's task and memory limits, which needs root and cgroup v1's pids and memory "
                    + "controllers or v2's, as CI has")
            }
            made.append(folder)
            for (file, value) in settings {
                guard let handle = FileHandle(forWritingAtPath: "\(folder)/\(file)") else {
                    throw BrokerTestFailure(description: "cannot open \(folder)/\(file) to limit the broker")
                }
                defer { try? handle.close() }
                try handle.write(contentsOf: Data(value.utf8))
            }
        }
        do {
            if let pids = ownPath("pids"), let memory = ownPath("memory") {
                try make("/sys/fs/cgroup/pids\(pids)/\(name)", [("pids.max", "\(Self.tasks)")])
                try make("/sys/fs/cgroup/memory\(memory)/\(name)", [("memory.limit_in_bytes", "\(Self.memory)")])
            } else if let unified = own.first(where: { $0.hasPrefix("0::") }).map({ String($0.dropFirst(3)) }) {
                let parent = "/sys/fs/cgroup\(unified == "/" ? "" : unified)"
                let offered = (try? String(contentsOfFile: "\(parent)/cgroup.subtree_control", encoding: .utf8)) ?? ""
                guard offered.contains("pids"), offered.contains("memory") else {
                    throw BrokerTestFailure(description: "\(parent) does not offer the pids and memory controllers to its children "
                        + "(cgroup.subtree_control: \(offered.trimmingCharacters(in: .whitespacesAndNewlines))): this test runs the "
                        + "broker under its unit's task and memory limits, which needs them, as CI has")
                }
                try make("\(parent)/\(name)", [("pids.max", "\(Self.tasks)"), ("memory.max", "\(Self.memory)")])
            } else {
                throw BrokerTestFailure(description: "no pids and memory cgroups in /proc/self/cgroup: this test needs them")
            }
        } catch {
            for folder in made.reversed() { rmdir(folder) }
            throw error
        }
        folders = made
    }

    /// A launcher for the activation file: joins the cgroups, sets the descriptor limit, and runs its arguments with
    /// their standard error in `log`.
    func launcher(in root: URL) throws -> (script: String, log: String) {
        let directory = root.appendingPathComponent("broker-limits-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (script, log) = (directory.appendingPathComponent("launch").path, directory.appendingPathComponent("broker.log").path)
        let join = folders.map { "echo $$ > '\($0)/cgroup.procs' || exit 1\n" }.joined()
        try Data("#!/bin/sh\n\(join)ulimit -n \(Self.descriptors) || exit 1\nexec \"$@\" 2>>'\(log)'\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        guard chmod(script, 0o755) == 0 else { throw BrokerTestFailure(description: "chmod \(script) failed") }
        return (script, log)
    }

    /// Whether process `pid` is in every one of the cgroups.
    func holds(_ pid: pid_t) -> Bool {
        folders.allSatisfy { folder in
            ((try? String(contentsOfFile: "\(folder)/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").contains("\(pid)")
        }
    }

    /// What the cgroups counted: tasks now and refused, memory now and at most, the times the memory limit was met.
    func report() -> String {
        let files = ["pids.current", "pids.events", "memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.failcnt",
                     "memory.current", "memory.peak", "memory.events"]
        return folders.flatMap { folder in
            files.compactMap { file in
                (try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)).map {
                    "\(file)=\($0.split(separator: "\n").joined(separator: ","))"
                }
            }
        }.joined(separator: " ")
    }

    /// Removes the cgroups (empty once the broker has exited; a cgroup with a process in it stays, and says so).
    func remove() {
        for folder in folders.reversed() where rmdir(folder) != 0 {
            print("BrokerLimits: \(folder) not removed: \(String(cString: strerror(errno)))")
        }
    }

    /// The soft limit of process `pid`'s open descriptors (`Max open files` in `/proc/PID/limits`).
    static func descriptorLimit(of pid: pid_t) -> Int? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        return limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
            .flatMap { $0.dropFirst("Max open files".count).split(separator: " ").first.flatMap { Int($0) } }
    }

    /// The threads and open descriptors of process `pid`.
    static func usage(of pid: pid_t) -> (threads: Int, descriptors: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let threads = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            .flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) } ?? -1
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        return (threads, descriptors)
    }
}
