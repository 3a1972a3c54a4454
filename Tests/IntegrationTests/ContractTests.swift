import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// What every ``KeychainStore`` promises, run against the real gnome-keyring and the in-memory store.
    @Suite struct Contract {
        enum Payload: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// Text with KeePass placeholders after a nested object, where KeePassXC's resolver
            /// reaches them when the secret is its entry's password.
            case text, placeholders, binary, empty, oneMebibyte
            var testDescription: String { rawValue }

            var data: Data {
                switch self {
                case .text: return .text(#"{"uid":"héllo","token":"✓"}"#)
                case .placeholders:
                    return .text(#"{"t":{"a":1},"name":"{TITLE} {USERNAME} {URL} {S:x} {DT_SIMPLE}","p":"x {PASSWORD} y"}"#)
                case .binary: return Data([0x00, 0xFF, 0x80, 0x7F, 0xC3, 0x28, 0x00])
                case .empty: return Data()
                case .oneMebibyte:
                    return Data((0..<KeychainLimits.maximumSecretSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
                }
            }
        }

        @Test(arguments: StoreUnderTest.allCases, Payload.allCases)
        func everyPayloadRoundTrips(_ kind: StoreUnderTest, _ payload: Payload) async throws {
            let store = try kind.make()
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(payload.data, for: key, label: "round trip")
            #expect(try await store.data(for: key) == payload.data)
            let items = try await store.items(in: .group(key.accessGroup!))
            #expect(items.map(\.size) == [payload.data.count])
            #expect(try await store.removeData(for: key))
        }

        @Test(arguments: StoreUnderTest.allCases)
        func overwritingLeavesExactlyOneItem(_ kind: StoreUnderTest) throws {
            let store = try kind.make()
            let group = uniqueGroup()
            let key = uniqueKey(in: group)
            for value in ["first", "second", "third, longer"] {
                try store.setData(.text(value), for: key, label: "label \(value)")
            }
            #expect(try store.data(for: key) == .text("third, longer"))
            let items = try store.items(in: .group(group))
            #expect(items.count == 1)
            #expect(items.first?.key == key)
            // KWallet keeps an item's first label when it is replaced (its entries are named by label).
            #expect(items.first?.label == (kind.replacesLabel ? "label third, longer" : "label first"))
            #expect(items.first?.size == 13)
            try store.removeAll(in: group)
        }

        @Test(arguments: StoreUnderTest.allCases)
        func privateAndEachGroupAreDistinctItems(_ kind: StoreUnderTest) async throws {
            let store = try kind.make()
            let (groupX, groupY) = (uniqueGroup(), uniqueGroup())
            let unshared = uniqueKey()
            let inX = KeychainKey(service: unshared.service, account: unshared.account, accessGroup: groupX)
            let inY = KeychainKey(service: unshared.service, account: unshared.account, accessGroup: groupY)
            try await store.setData(.text("private"), for: unshared, label: "p")
            try await store.setData(.text("in X"), for: inX, label: "x")
            try await store.setData(.text("in Y"), for: inY, label: "y")

            #expect(try await store.data(for: unshared) == .text("private"))
            #expect(try await store.data(for: inX) == .text("in X"))
            #expect(try await store.data(for: inY) == .text("in Y"))
            #expect(try await store.items(in: .group(groupX)).map(\.key) == [inX])
            #expect(try await store.items(in: .ungrouped).filter { $0.key.service == unshared.service }.map(\.key) == [unshared])
            let groupsInOrder = [inX, inY].sorted { $0.accessGroup!.rawValue < $1.accessGroup!.rawValue }
            #expect(try await store.items(in: .all).filter { $0.key.service == unshared.service }.map(\.key) == [unshared] + groupsInOrder)

            #expect(try await store.removeData(for: inX))
            #expect(try await store.data(for: inX) == nil)
            #expect(try await store.data(for: inY) == .text("in Y"))
            #expect(try await store.removeAll(in: groupY) == 1)
            #expect(try await store.data(for: unshared) == .text("private"))
            #expect(try await store.removeData(for: unshared))
            #expect(try await store.removeData(for: unshared) == false)
        }

        @Test(arguments: StoreUnderTest.allCases)
        func anAbsentKeyReadsAsNil(_ kind: StoreUnderTest) async throws {
            let store = try kind.make()
            #expect(try await store.data(for: uniqueKey(in: uniqueGroup())) == nil)
            #expect(try await store.items(in: .group(uniqueGroup())).isEmpty)
            #expect(try await store.removeAll(in: uniqueGroup()) == 0)
        }

        @Test(arguments: StoreUnderTest.allCases)
        func anOversizedSecretIsRefusedAndTheStoredOneKept(_ kind: StoreUnderTest) async throws {
            let store = try kind.make()
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("kept"), for: key, label: "l")
            let oversized = Data(count: KeychainLimits.maximumSecretSize + 1)
            await #expect(throws: KeychainError.payloadTooLarge(size: oversized.count, limit: KeychainLimits.maximumSecretSize)) {
                try await store.setData(oversized, for: key, label: "l")
            }
            #expect(try await store.data(for: key) == .text("kept"))
            try await store.removeData(for: key)
        }

        @Test(arguments: StoreUnderTest.allCases)
        func keysAStoreCannotHoldAreRefused(_ kind: StoreUnderTest) throws {
            let store = try kind.make()
            let emptyService = KeychainKey(service: "", account: "a")
            #expect(throws: KeychainError.invalidKey(emptyService, reason: "the service is empty")) {
                try store.setData(.text("x"), for: emptyService, label: "l")
            }
            let nulAccount = KeychainKey(service: "s", account: "a\u{0}b")
            #expect(throws: KeychainError.invalidKey(nulAccount, reason: "the account contains a NUL character")) {
                try store.data(for: nulAccount)
            }
        }
    }
}
