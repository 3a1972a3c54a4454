import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// A process that follows many scopes, and begins and ends observations all day, holds one watcher thread and
    /// gives back every thread and descriptor its observations made.
    @Suite struct ObservationResources {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        /// Eight scopes followed at once cost one thread; a thousand observations begun and ended (and a hundred
        /// that start and stop the watcher alone) leave the process's threads and descriptors where they were.
        @Test func observationsShareOneThreadAndLeaveNothingBehind() async throws {
            let result = try await Subprocess.run(
                try Harness.product("keychain-probe"), ["cycle", "--group", uniqueGroup().rawValue, "--repeats", "1000"],
                limit: .seconds(240))
            try result.requireSuccess("keychain-probe cycle")
            let counts = try Self.counts(in: result.output)
            let (before, during, after) = (try #require(counts["before"]), try #require(counts["during"]), try #require(counts["after"]))
            #expect(during.threads == before.threads + 1, "eight observations: \(result.output)")
            #expect(during.fds <= before.fds + 3, "eight observations: \(result.output)")
            #expect(after.threads == before.threads && after.fds == before.fds, "after 1,100 observations: \(result.output)")
        }

        /// A Swift app with live sync that switches its group a thousand times (among nine groups and its private
        /// scope) follows the last one and holds the threads and descriptors it held at the first.
        @Test func anAppThatSwitchesGroupsAThousandTimesLeavesNothingBehind() async throws {
            let result = try await Subprocess.run(
                try Harness.product("auth-probe"),
                [String(UUID().uuidString.prefix(8)), "A", "switch-groups", uniqueGroup().rawValue, "1000"], limit: .seconds(240))
            try result.requireSuccess("auth-probe switch-groups")
            let counts = try Self.counts(in: result.output)
            let (before, after) = (try #require(counts["before"]), try #require(counts["after"]))
            // Not one more: one fewer is a descriptor of the start-up's that a loaded machine had not closed yet when
            // `before` was counted (seen once, 11 then 10, with a build beside the suite), not one the switches kept.
            #expect(after.threads == before.threads && after.fds <= before.fds, "after 1,000 switches: \(result.output)")
            #expect(result.output.contains("live=true"), "\(result.output)")
        }

        /// Five thousand reads of one item leave the process's memory where it was (each read's reply released; the
        /// read libsecret offers keeps about a kilobyte of every reply).
        @Test func fiveThousandReadsLeaveTheMemoryWhereItWas() async throws {
            let group = uniqueGroup()
            let key = KeychainKey(service: "reads", account: "probe", accessGroup: group)
            try await SecretServiceStore().setData(Data(repeating: 0x61, count: 1400), for: key, label: "keychain-probe reads")
            defer { _ = try? SecretServiceStore().removeAll(in: group) }
            let result = try await Subprocess.run(
                try Harness.product("keychain-probe"), ["read", "--service", "reads", "--account", "probe", "--group", group.rawValue,
                "--repeats", "5000"], limit: .seconds(240))
            try result.requireSuccess("keychain-probe read")
            let resident = Dictionary(uniqueKeysWithValues: result.output.split(separator: "\n").compactMap { line -> (String, Int)? in
                let words = line.split(separator: " ")
                guard words.count == 2, let value = Int(words[1].dropFirst("rss=".count)) else { return nil }
                return (String(words[0]), value)
            })
            let (before, after) = (try #require(resident["before"]), try #require(resident["after"]))
            #expect(after - before < 1024, "resident KiB before and after 5,000 reads: \(before) → \(after)")
        }

        /// A process out of descriptors gets a typed error from each keychain call that needs one (GLib would end it),
        /// and the same calls work once descriptors can be had again.
        @Test func outOfDescriptorsIsAnErrorOfTheCallNeverAnAbort() async throws {
            let result = try await Subprocess.run(
                try Harness.product("keychain-probe"), ["nofile", "--group", uniqueGroup().rawValue], limit: .seconds(120))
            try result.requireSuccess("keychain-probe nofile")
            let lines = result.output.split(separator: "\n").map(String.init)
            let refused = "no descriptor could be opened"
            #expect(lines.count == 4, "\(result.output)\(result.standardError)")
            for (line, (start, words)) in zip(lines, [
                ("limited read: underlying: ", refused), ("limited observation: underlying: ", refused),
                ("lifted read: ", "answered"), ("lifted observation: ", "began"),
            ]) {
                #expect(line.hasPrefix(start) && line.contains(words), "\(line)")
            }
        }

        /// `label threads=T fds=F` lines, by label.
        static func counts(in output: String) throws -> [String: (threads: Int, fds: Int)] {
            var counts: [String: (threads: Int, fds: Int)] = [:]
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 3, let threads = Int(words[1].dropFirst("threads=".count)),
                      let fds = Int(words[2].dropFirst("fds=".count)) else { continue }
                counts[String(words[0])] = (threads, fds)
            }
            return counts
        }
    }
}
