import Foundation
import KeyringTestSupport
import Testing

extension BrokerFixture {
    /// The running broker's resident memory, in KiB (`VmRSS`).
    func brokerMemory() async throws -> Int {
        let pid = try #require(try await brokerPID(), "the broker runs")
        return try #require(residentKiB(of: "\(pid)"), "the broker's VmRSS")
    }

    /// The broker's resident memory once it is below `limit` KiB, or when `within` has passed.
    func brokerMemory(settlingBelow limit: Int, within: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + within
        while true {
            let now = try await brokerMemory()
            if now < limit || ContinuousClock.now > deadline { return now }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The broker's threads and descriptors once they hold still (the same count for two seconds: the dispatch threads a
    /// burst made have ended), within `within`, else a failure saying what they were.
    func brokerResourcesOnceSteady(within: Duration) async throws -> (threads: Int, fds: Int) {
        let deadline = ContinuousClock.now + within
        var last = try await brokerResources()
        var since = ContinuousClock.now
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let now = try await brokerResources()
            if now != last {
                (last, since) = (now, ContinuousClock.now)
            } else if ContinuousClock.now - since >= .seconds(2) {
                return now
            }
        }
        throw BrokerTestFailure(description: "the broker's threads and descriptors did not hold still within \(within): last \(last)")
    }

    /// Waits until the broker holds no more threads and descriptors than `limit` (threads a dispatch queue made for a
    /// burst end after a few idle seconds), within `within`; answers what it holds then.
    func brokerResources(settlingAt limit: (threads: Int, fds: Int), within: Duration) async throws -> (threads: Int, fds: Int) {
        let deadline = ContinuousClock.now + within
        while true {
            let now = try await brokerResources()
            if (now.threads <= limit.threads && now.fds <= limit.fds) || ContinuousClock.now > deadline { return now }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

extension KeyringTests.Broker {
    /// The broker runs for weeks: thousands of every kind of call, from many clients that come and go, leave it holding
    /// what it held before.
    @Suite struct Soak {
        /// Five apps (four host processes and a sandboxed app), four connections each, through two soaks of every
        /// operation: follows, watches, sign-in and sign-out, GitHub steps begun and abandoned, connections that leave
        /// mid-call. After each, once every client has left, the broker's threads and descriptors are back where they
        /// started, and its memory does not grow from the first soak to the second (or, after a one-off rise there, from
        /// the second to a third).
        @Test func thousandsOfCallsFromClientsThatComeAndGoLeaveNothingBehind() async throws {
            let broker = try await BrokerFixture.start()
            let github = try FakeGitHub(user: ["sub": "octo-soak"], answers: [.pending])
            defer { github.stop() }
            try await broker.serveGitHub(github)
            let soak = broker.packageRoot.appendingPathComponent("Tests/broker-driver/broker_soak.py").path
            let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app, options: .sortedKeys), as: UTF8.self)
            func run(rounds: Int) async throws -> Int {
                let clients: [[String]] = (0..<4).map { _ in ["/usr/bin/python3", soak, appJSON, BrokerFixture.group, "\(rounds)", "4"] }
                    + [broker.sandbox(appID: "com.example.Notes", readOnly: [soak]) + ["/usr/bin/python3", soak, appJSON, BrokerFixture.group, "\(rounds)", "4"]]
                return try await withThrowingTaskGroup(of: Int.self) { group in
                    for client in clients {
                        group.addTask {
                            let result = try await Subprocess.run(client[0], Array(client.dropFirst()), limit: .seconds(600))
                            try result.requireSuccess("broker_soak.py")
                            let line = try #require(result.output.split(separator: "\n").last.map(String.init))
                            let counts = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                            #expect(counts["errors"] as? Int == 0, "\(line)")
                            return counts["calls"] as? Int ?? 0
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            _ = try await run(rounds: 2)  // warm-up: the Auths, the watcher, the connections to the keyring made once
            let start = try await broker.brokerResourcesOnceSteady(within: .seconds(60))
            let calls = try await run(rounds: 60)
            #expect(calls > 5000, "\(calls) calls")
            let first = try await broker.brokerResources(settlingAt: start, within: .seconds(60))
            let memoryAfterFirst = try await broker.brokerMemory()
            #expect(first.threads <= start.threads && first.fds <= start.fds, "threads and descriptors: \(start) → \(first)")
            _ = try await run(rounds: 60)
            let second = try await broker.brokerResources(settlingAt: start, within: .seconds(60))
            #expect(second.threads <= start.threads && second.fds <= start.fds, "threads and descriptors: \(start) → \(second)")
            // A second after its last call the broker gives its heap's free pages back: what stays is what it holds. A
            // broker whose resident memory is larger (the keychain's listings of a collection many earlier tests wrote to)
            // may end a soak a few MiB up once, where its heap's free pages sit: a leak grows again with the next soak, so
            // a third one decides, by the same bound.
            var memory = [memoryAfterFirst, try await broker.brokerMemory(settlingBelow: memoryAfterFirst + 4096, within: .seconds(30))]
            if memory[1] - memory[0] >= 4096 {
                _ = try await run(rounds: 60)
                let third = try await broker.brokerResources(settlingAt: start, within: .seconds(60))
                #expect(third.threads <= start.threads && third.fds <= start.fds, "threads and descriptors: \(start) → \(third)")
                memory.append(try await broker.brokerMemory(settlingBelow: memory[1] + 4096, within: .seconds(30)))
            }
            #expect(memory[memory.count - 1] - memory[memory.count - 2] < 4096, "memory after each soak: \(memory) KiB")
            print("soak: \(calls) calls a soak; threads, descriptors \(start) → \(first) → \(second); RSS after each soak \(memory) KiB")
        }
    }
}
