import Foundation
import SecretKeychain
import Testing

/// What only the in-memory store can show in-process; the shared behaviour is in the contract
/// suite of the integration tests, which runs against both stores.
@Suite struct InMemoryStoreTests {
    @Test func concurrentWritersLeaveOneConsistentItemPerKey() async throws {
        let store = InMemoryStore()
        let group = try AccessGroup("TEAMID.concurrent")
        let keys = (0..<4).map { KeychainKey(service: "s\($0)", account: "a", accessGroup: group) }
        let values = (0..<50).map { Data("value-\($0)".utf8) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for key in keys {
                for value in values {
                    tasks.addTask { try await store.setData(value, for: key, label: "l") }
                    tasks.addTask { _ = try await store.data(for: key) }
                }
            }
            try await tasks.waitForAll()
        }
        let items = try await store.items(in: .group(group))
        #expect(items.map(\.key) == keys)
        for key in keys {
            let stored = try #require(try await store.data(for: key))
            #expect(values.contains(stored))
        }
    }

    @Test func keepsCreationTimeAcrossOverwrites() throws {
        let store = InMemoryStore()
        let key = KeychainKey(service: "s", account: "a")
        try store.setData(Data("1".utf8), for: key, label: "first")
        let first = try #require(try store.items(in: .all).first)
        try store.setData(Data("22".utf8), for: key, label: "second")
        let second = try #require(try store.items(in: .all).first)
        #expect(second.created == first.created)
        #expect(second.modified >= first.modified)
        #expect(second.label == "second")
        #expect(second.size == 2)
    }
}
