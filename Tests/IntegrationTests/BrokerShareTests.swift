import Foundation
import KeyringTestSupport
import Testing

/// One app calling the broker over many connections (`Tests/broker-driver/broker_flood.py`), sandboxed as Flatpak runs
/// it or on the host.
struct FloodingApp {
    let channel: LineChannel

    init(_ broker: BrokerFixture, as appID: String?, connections: Int) async throws {
        let flood = broker.packageRoot.appendingPathComponent("Tests/broker-driver/broker_flood.py").path
        let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app, options: .sortedKeys), as: UTF8.self)
        let command = ["/usr/bin/python3", flood, appJSON]
        channel = try LineChannel(appID.map { broker.sandbox(appID: $0, readOnly: [flood]) + command } ?? command)
        let ready = try await channel.nextLine(within: .seconds(60))
        guard ready == "ready" else { throw BrokerTestFailure(description: "the flooding app said \(ready): \(channel.standardError)") }
        try await ask("connect \(connections)")
    }

    /// Sends one command and answers its line.
    @discardableResult
    func ask(_ command: String) async throws -> String {
        channel.send(command)
        return try await channel.nextLine(within: .seconds(300))
    }

    /// Waits for `count` answers of the calls sent: how many were accepted, refused, and each distinct refusal.
    func results(_ count: Int) async throws -> (accepted: Int, refused: Int, refusals: [String]) {
        let line = try await ask("results \(count)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line) \(channel.standardError)")
        return (object["accepted"] as? Int ?? -1, object["refused"] as? Int ?? -1, object["refusals"] as? [String] ?? [])
    }

    /// Calls `StartGitHubSignIn` on every connection at once, round after round, until `accepted` were accepted in
    /// all or `rounds` have run; answers the accepted count and the last round's refusals.
    func startGitHubSignIns(upTo accepted: Int, rounds: Int, connections: Int) async throws -> (accepted: Int, refusals: [String]) {
        var total = 0
        var refusals: [String] = []
        for _ in 0..<rounds where total < accepted {
            try await ask(#"call StartGitHubSignIn - {"clientID": "Iv1.flood"}"#)
            let round = try await results(connections)
            total += round.accepted
            refusals = round.refusals
        }
        return (total, refusals)
    }

    func finish() async -> Int32 {
        channel.send("close")
        return await channel.finish()
    }
}

extension BrokerFixture {
    /// The running broker's threads and open descriptors, as /proc counts them.
    func brokerResources() async throws -> (threads: Int, fds: Int) {
        let pid = try #require(try await brokerPID(), "the broker runs")
        let count = { (path: String) in try FileManager.default.contentsOfDirectory(atPath: path).count }
        return (try count("/proc/\(pid)/task"), try count("/proc/\(pid)/fd"))
    }
}

extension KeyringTests.Broker {
    /// What one app may make the broker hold is counted per app, across its connections: a sandboxed app that opens
    /// many connections gets one app's share, and every other app is still served.
    @Suite struct Shares {
        /// Follows: 5 connections × 10 groups of one sandboxed app are 32 follows, the rest refused at once; they
        /// cost the broker one watcher thread, not one each; another app still follows.
        @Test func oneAppsFollowsAreOneSharePerAppAndShareOneWatcher() async throws {
            let broker = try await BrokerFixture.start()
            try await broker.call("GetUser").requireSuccess("a first call, which starts the broker")
            let before = try await broker.brokerResources()
            let evil = try await FloodingApp(broker, as: "org.evil.App", connections: 5)
            #expect(try await evil.ask("follow TEAMID.org.evil.shared 10") == "followed")
            let follows = try await evil.results(50)
            #expect(follows.accepted == 32 && follows.refused == 18, "\(follows)")
            #expect(follows.refusals.count == 1 && follows.refusals[0].contains("at most 32 follows"), "\(follows.refusals)")
            let during = try await broker.brokerResources()
            // Before, each followed group started a thread (and a bus connection) of its own.
            #expect(during.threads < before.threads + 8, "threads: \(before) → \(during)")

            let notes = try await FloodingApp(broker, as: "com.example.Notes", connections: 1)
            #expect(try await notes.ask("follow TEAMID.com.example.shared 1") == "followed")
            #expect(try await notes.results(1).accepted == 1)
            #expect(await notes.finish() == 0, "\(notes.channel.standardError)")
            #expect(await evil.finish() == 0, "\(evil.channel.standardError)")
        }

        /// Items: a sandboxed app keeps through `Keychain1` what an `Auth` keeps (8 items a scope, 32 in all, 32 KiB
        /// each, counted among the items the broker stored for it), under labels the broker writes; replacing its items is
        /// always allowed, and another app still stores, also in a group where a third app has filled its share.
        @Test func theItemInterfaceKeepsWhatAnAuthKeepsUnderFixedLabels() async throws {
            let broker = try await BrokerFixture.start()
            let evil = try await FloodingApp(broker, as: "org.evil.App", connections: 1)
            #expect(try await evil.ask("store - 1 1048576") == "stored")
            let large = try await evil.results(1)
            #expect(large.accepted == 0 && large.refusals.contains { $0.contains("at most 32768") }, "\(large)")
            #expect(try await evil.ask("store - 12 2048") == "stored")
            let privately = try await evil.results(12)
            #expect(privately.accepted == 8 && privately.refusals.contains { $0.contains("8 items in its private scope") }, "\(privately)")
            var grouped = 0
            for index in 0..<5 {
                #expect(try await evil.ask("store TEAMID.org.evil.g\(index) 8 2048") == "stored")
                let round = try await evil.results(8)
                grouped += round.accepted
                if index == 4 { #expect(round.refusals.contains { $0.contains("32 items in the scopes it may use") }, "\(round)") }
            }
            #expect(grouped == 24, "32 in all, 8 of them private")
            #expect(try await evil.ask("store - 8 4096") == "stored")
            #expect(try await evil.results(8).accepted == 8, "its own items are replaced")
            let labels = try await evil.ask("labels -")
            #expect(labels == #"["Firebase user of a private scope, kept by keyring-auth-broker for the Flatpak app org.evil.App"]"#)

            // Another app of the domain fills its share of a group: Notes's share there is its own.
            let sibling = try await FloodingApp(broker, as: "com.example.Sibling", connections: 1)
            #expect(try await sibling.ask("store TEAMID.com.example.shared 9 2048") == "stored")
            #expect(try await sibling.results(9).accepted == 8)
            let notes = try await FloodingApp(broker, as: "com.example.Notes", connections: 1)
            #expect(try await notes.ask("store TEAMID.com.example.shared 1 2048") == "stored")
            #expect(try await notes.results(1).accepted == 1)
            for app in [evil, sibling, notes] { #expect(await app.finish() == 0, "\(app.channel.standardError)") }
        }

        /// Steps: one sandboxed app's GitHub sign-ins over 24 connections send one request at a time to GitHub and
        /// keep at most 4 steps in all; a host process and another app still start theirs; a start whose client
        /// leaves before GitHub answers gives its slot back.
        @Test func stepsAreOneSharePerAppReservedBeforeGitHubIsAsked() async throws {
            let broker = try await BrokerFixture.start()
            let github = try FakeGitHub(user: ["sub": "octo-share"], answers: [.pending])
            defer { github.stop() }
            try await broker.serveGitHub(github)

            let evil = try await FloodingApp(broker, as: "org.evil.App", connections: 24)
            github.holdingCodes = true
            try await evil.ask(#"call StartGitHubSignIn - {"clientID": "Iv1.flood"}"#)
            // One request reaches GitHub; the other 23 are refused at once, while it waits.
            try await github.codeArrivals.next(within: .seconds(60))
            let waiting = try await evil.results(23)
            #expect(waiting.accepted == 0 && waiting.refused == 23, "\(waiting)")
            #expect(waiting.refusals.allSatisfy { $0.contains("already starting a GitHub sign-in") || $0.contains("calls in progress") }, "\(waiting.refusals)")
            github.answerHeldCodes()
            #expect(try await evil.results(1).accepted == 1)
            #expect(github.codeRequests.count == 1)

            let filled = try await evil.startGitHubSignIns(upTo: 3, rounds: 8, connections: 24)
            #expect(filled.accepted == 3, "four steps in all: \(filled)")
            let full = try await evil.startGitHubSignIns(upTo: 1, rounds: 1, connections: 24)
            #expect(full.accepted == 0 && full.refusals.contains { $0.contains("at most 4 at once") }, "\(full)")

            // Another sandboxed app, and a host process, still start theirs.
            let notes = try await FloodingApp(broker, as: "com.example.Notes", connections: 1)
            #expect(try await notes.startGitHubSignIns(upTo: 1, rounds: 1, connections: 1).accepted == 1)
            let host = try await broker.call("StartGitHubSignIn", group: "''", ["{'clientID': <'Iv1.host'>}"])
            try host.requireSuccess("a host process's StartGitHubSignIn")

            // A client that leaves while GitHub has not answered: its slot is given back, never filled.
            let other = try await FloodingApp(broker, as: "org.other.App", connections: 1)
            github.holdingCodes = true
            try await other.ask(#"call StartGitHubSignIn - {"clientID": "Iv1.flood"}"#)
            try await github.codeArrivals.next(within: .seconds(60))
            #expect(try await other.ask("close") == "closed")
            github.answerHeldCodes()
            _ = try await other.results(1)
            try await other.ask("connect 4")
            #expect(try await other.startGitHubSignIns(upTo: 4, rounds: 8, connections: 4).accepted == 4)

            for app in [evil, notes, other] { #expect(await app.finish() == 0, "\(app.channel.standardError)") }
        }
    }
}
