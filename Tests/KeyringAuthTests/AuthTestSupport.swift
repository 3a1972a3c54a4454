import Dispatch
import Foundation
import SecretKeychain
import Synchronization

@testable import KeyringAuth
import KeyringTestSupport

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

    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        try base.observeChanges(in: scope, handler)
    }
}
