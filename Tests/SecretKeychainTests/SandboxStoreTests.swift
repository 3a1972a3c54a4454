import Foundation
import SystemSupport
import Testing

@testable import SecretKeychain

/// What a sandboxed app's stores decide without a bus: `SandboxStore`'s routing of private keys and groups, and what
/// a failed call to the broker means for the keychain.
@Suite struct SandboxStoreTests {
    static let group = try! AccessGroup("TEAMID.com.example.shared")
    static let privateKey = KeychainKey(service: "firebase_auth_1:1:linux:a", account: "firebase_auth_1_[DEFAULT]_firebase_user")
    static let groupKey = KeychainKey(service: "AIza-a", account: "firebase_auth_firebase_user", accessGroup: group)

    @Test func privateKeysGoToOneStoreAndGroupsToTheOther() throws {
        let own = InMemoryStore(), shared = InMemoryStore()
        let store = SandboxStore(privateStore: own, groupStore: shared)
        try store.setData(Data("mine".utf8), for: Self.privateKey, label: "private")
        try store.setData(Data("ours".utf8), for: Self.groupKey, label: "group")
        #expect(try own.data(for: Self.privateKey) == Data("mine".utf8) && own.items(in: .all).count == 1)
        #expect(try shared.data(for: Self.groupKey) == Data("ours".utf8) && shared.items(in: .all).count == 1)
        #expect(try store.items(in: .all).map(\.key) == [Self.privateKey, Self.groupKey])
        #expect(try store.items(in: .ungrouped).map(\.key) == [Self.privateKey])
        #expect(try store.removeAll(in: Self.group) == 1 && store.data(for: Self.privateKey) != nil)
    }

    @Test func aGroupStoresItemsWithoutAGroupAreNotListedTwice() throws {
        // The broker as both stores (no portal keyring): `.all` lists each item once.
        let broker = InMemoryStore()
        let store = SandboxStore(privateStore: broker, groupStore: broker)
        try store.setData(Data("mine".utf8), for: Self.privateKey, label: "private")
        try store.setData(Data("ours".utf8), for: Self.groupKey, label: "group")
        #expect(try store.items(in: .all).map(\.key) == [Self.privateKey, Self.groupKey])
    }

    @Test func aPrivateItemThroughTheBrokerSaysWhyThePortalWasNotUsed() {
        let store = SandboxStore(
            privateStore: FailingStore(error: .noBroker(detail: "not installed")), groupStore: FailingStore(error: .noBroker(detail: "not installed")),
            privateFallbackReason: "the Secret portal is not available (no Secret backend)")
        #expect(throws: KeychainError.noBroker(
            detail: "the Secret portal is not available (no Secret backend), so the app's own items go through the broker too, and not installed")) {
            try store.data(for: Self.privateKey)
        }
        // A group's error is the broker's own.
        #expect(throws: KeychainError.noBroker(detail: "not installed")) { try store.data(for: Self.groupKey) }
    }

    @Test func aBrokerCallsFailureBecomesTheKeychainErrorThatSaysWhatToDo() {
        func error(_ kind: SessionBusCall.Failure.Kind, _ message: String = "m") -> KeychainError {
            BrokerKeychainStore.keychainError(for: .init(kind: kind, message: message), operation: "Reading", limit: .seconds(15), writes: false)
        }
        #expect(error(.remote("org.freedesktop.DBus.Error.ServiceUnknown")).code == "noBroker")
        #expect(error(.remote("org.freedesktop.DBus.Error.AccessDenied")).code == "noBroker")
        #expect(error(.remote("org.freedesktop.DBus.Error.UnknownMethod")).description.contains("update keyring-auth-broker"))
        #expect(error(.remote("io.github.keyringauth.Broker1.Error.AccessDenied"), "no") == .brokerRefused(detail: "no"))
        #expect(error(.remote("io.github.keyringauth.Broker1.Error.KeychainUnavailable"), "timedOut: late")
            == .timedOut(operation: "Reading in the broker's keychain", limit: .seconds(15), writes: false))
        #expect(error(.remote("io.github.keyringauth.Broker1.Error.KeychainUnavailable"), "locked: The keyring is locked.")
            == .underlying(domain: "io.github.keyringauth.Broker1", code: 0, message: "the broker's keychain: The keyring is locked."))
        #expect(error(.timedOut) == .timedOut(operation: "Reading through the broker", limit: .seconds(15), writes: false))
        #expect(error(.noBus).code == "noSessionBus")
        // Every new error says what to do.
        #expect(KeychainError.noBroker(detail: "d").description.contains("--talk-name=io.github.keyringauth.Broker1"))
        #expect(KeychainError.noPortal(detail: "d").description.contains("Secret backend"))
    }

    @Test func thePortalKeyringRefusesAGroupAndTouchesNothing() {
        #expect(throws: KeychainError.self) { try SecretPortalStore().setData(Data(), for: Self.groupKey, label: "x") }
        #expect(SecretPortalStore.unavailability(sandbox: .none)?.contains("no Flatpak or Snap sandbox") == true)
    }
}

/// A store whose every call fails with `error`.
private struct FailingStore: KeychainStore {
    let error: KeychainError
    func data(for key: KeychainKey) throws(KeychainError) -> Data? { throw error }
    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) { throw error }
    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool { throw error }
    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { throw error }
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { throw error }
    func observeChanges(in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void) throws(KeychainError) -> KeychainObservation {
        throw error
    }
}
