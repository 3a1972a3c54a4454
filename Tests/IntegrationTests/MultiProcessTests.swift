import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// Several writers of one key: other processes running this package, and other clients.
    @Suite struct SharedWriters {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        @Test(.enabledUnlessTheProviderCrashesUnderConcurrentWriters)
        func processesWritingOneSharedKeyLeaveOneItem() async throws {
            let tool = try Harness.product("keychain-probe")
            let key = uniqueKey(in: uniqueGroup())
            let values = (1...4).map { "written by process \($0)" }
            try await withThrowingTaskGroup(of: Subprocess.Result.self) { processes in
                for value in values {
                    processes.addTask {
                        try await Subprocess.run(tool, [
                            "write", "--service", key.service, "--account", key.account,
                            "--group", key.accessGroup!.rawValue, "--repeats", "25",
                        ], input: .text(value))
                    }
                }
                for try await result in processes { try result.requireSuccess("keychain-probe write") }
            }
            let raw = try RawSecretService.items(matching: SecretServiceSchema.attributes(for: key))
            #expect(raw.count == 1)
            let store = SecretServiceStore()
            let stored = try #require(try await store.data(for: key))
            #expect(values.map { Data.text($0) }.contains(stored))
            try await store.removeData(for: key)
        }

        /// A write is one replacing `CreateItem` where the provider replaces atomically (gnome-keyring,
        /// KWallet): no search for duplicates, since none of ours can exist; KeePassXC's writes
        /// search first (an existing item is updated in place) and after (a duplicate another app
        /// made meanwhile is removed). Once a read has found another client's duplicates, the next
        /// write searches and removes them (the test below).
        @Test func aWriteSearchesForDuplicatesOnlyWhereTheyCanArise() async throws {
            let store = SecretServiceStore()
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("first"), for: key, label: "l")
            let monitor = try await BusMonitor(
                matching: "type='method_call',interface='org.freedesktop.Secret.Service',member='SearchItems'", harness: harness)
            for index in 1...3 { try await store.setData(.text("write \(index)"), for: key, label: "l") }
            let searches = try await monitor.stop().components(separatedBy: "member=SearchItems").count - 1
            #expect(searches == (harness.provider == .keepassxc ? 6 : 0), "\(searches) searches for 3 writes")
            #expect(try await store.data(for: key) == .text("write 3"))
            #expect(try RawSecretService.items(matching: SecretServiceSchema.attributes(for: key)).count == 1)
            try await store.removeData(for: key)
        }

        @Test func duplicatesFromAnotherClientReadNewestAndAreCleanedUpOnTheNextWrite() async throws {
            let store = SecretServiceStore()
            let key = uniqueKey(in: uniqueGroup())
            let attributes = SecretServiceSchema.attributes(for: key)

            let first = try RawSecretService.createWithoutReplacing(attributes: attributes, label: "dup 1", secret: "older")
            try await waitForNextWholeSecond()
            try RawSecretService.createWithoutReplacing(attributes: attributes, label: "dup 2", secret: "newer")
            #expect(try RawSecretService.items(matching: attributes).count == 2)

            #expect(try await store.data(for: key) == .text("newer"))
            #expect(try await store.data(for: key) == .text("newer"))
            #expect(try await store.items(in: .group(key.accessGroup!)).map(\.label) == ["dup 2"])

            // Newest by time, not by position: the first item becomes the newest once rewritten.
            try await waitForNextWholeSecond()
            try RawSecretService.setSecret("rewritten", at: first)
            #expect(try await store.data(for: key) == .text("rewritten"))

            try await store.setData(.text("written by the store"), for: key, label: "one item")
            let remaining = try RawSecretService.items(matching: attributes)
            #expect(remaining.map(\.secret) == [.text("written by the store")])
            if harness.provider.replacesLabel {
                #expect(remaining.map(\.label) == ["one item"])
            } else {
                // KWallet keeps the label of the item it replaced (which of the two is its choice).
                #expect(remaining.count == 1 && ["dup 1", "dup 2"].contains(remaining[0].label), "\(remaining.map(\.label))")
            }
            #expect(try await store.data(for: key) == .text("written by the store"))
            try await store.removeData(for: key)
        }
    }
}
