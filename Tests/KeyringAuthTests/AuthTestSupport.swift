import Dispatch
import Foundation
import SecretKeychain
import Synchronization

@testable import KeyringAuth

/// Two apps of one access group, as in the reference document: different names and app IDs,
/// the same API key, one keychain.
struct TwoApps {
    static let group = "TEAMID.com.example.group1"
    let store: any KeychainStore
    let backend: FakeBackend

    init(store: any KeychainStore = InMemoryStore(), backend: FakeBackend = FakeBackend()) {
        self.store = store
        self.backend = backend
    }

    func configuration(_ name: String, store: (any KeychainStore)? = nil) -> AuthConfiguration {
        AuthConfiguration(
            options: AuthAppOptions(appName: name, apiKey: backend.apiKey, appID: "1:42:linux:\(name)", projectID: "demo"),
            store: store ?? self.store, backend: backend)
    }

    /// A fresh start of app `name`: a new instance that loads what is stored.
    func launch(_ name: String) -> Auth { Auth(configuration: configuration(name)) }
}

/// Records what a listener is told, as uids (`nil` for signed out).
final class ListenerLog: Sendable {
    private let events = Mutex<[String?]>([])

    func record(_ user: User?) { events.withLock { $0.append(user?.uid) } }

    /// Everything told so far, once every callback queued on `auth`'s queue before this call has run.
    func events(after auth: Auth) async -> [String?] {
        await withCheckedContinuation { continuation in
            auth.configuration.callbackQueue.async { continuation.resume() }
        }
        return events.withLock { $0 }
    }
}

/// A store whose writes or deletes fail, over a working one.
final class FailingStore: KeychainStore {
    let base = InMemoryStore()
    let failWrites = Atomic(false)
    let failRemoves = Atomic(false)
    static let failure = KeychainError.locked(collection: "the default alias")

    func data(for key: KeychainKey) throws(KeychainError) -> Data? { try base.data(for: key) }

    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        if failWrites.load(ordering: .relaxed) { throw Self.failure }
        try base.setData(data, for: key, label: label)
    }

    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool {
        if failRemoves.load(ordering: .relaxed) { throw Self.failure }
        return try base.removeData(for: key)
    }

    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { try base.items(in: scope) }
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { try base.removeAll(in: group) }
}
