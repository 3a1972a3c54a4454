import Foundation
import KeyringAuth
import SecretKeychain
import Synchronization

/// The cost of `auth.currentUser` (answered from memory) beside `getStoredUser(forAccessGroup:)`
/// (one keychain read), with the keychain calls each made counted by a wrapping store. Leaves the
/// user signed in, in its group, for the whole-process runs.
struct InProcessReads: Sendable {
    static let currentUserReads = 1_000_000
    static let storedUserReads = 200

    let group: String
    let options: AuthAppOptions
    let uid: String
    let currentUserNanoseconds: Double
    let currentUserKeychainCalls: Int
    let storedUserMicroseconds: Double
    let storedUserKeychainCalls: Int

    static func measure() async throws -> InProcessReads {
        let store = CountingStore(base: SecretServiceStore())
        let app = try await BenchApp.signIn(name: "reads", store: store, liveSync: true)
        let (auth, group, uid) = (app.auth, app.group, app.user.uid)
        // What follows reads the keyring only; the stored user stays for the whole-process runs.
        await app.emulator.stop()

        var before = store.calls
        var found = 0
        var started = monotonicNanoseconds()
        for _ in 0..<currentUserReads where auth.currentUser != nil { found += 1 }
        let currentUserNanoseconds = Double(monotonicNanoseconds() - started) / Double(currentUserReads)
        let currentUserKeychainCalls = store.calls - before
        guard found == currentUserReads else { throw BenchFailure("currentUser was nil in \(currentUserReads - found) reads") }

        before = store.calls
        started = monotonicNanoseconds()
        for _ in 0..<storedUserReads {
            guard try auth.getStoredUser(forAccessGroup: group)?.uid == uid else { throw BenchFailure("the stored user was not found") }
        }
        let storedUserMicroseconds = Double(monotonicNanoseconds() - started) / Double(storedUserReads) / 1000
        return InProcessReads(
            group: group, options: app.options, uid: uid, currentUserNanoseconds: currentUserNanoseconds,
            currentUserKeychainCalls: currentUserKeychainCalls, storedUserMicroseconds: storedUserMicroseconds,
            storedUserKeychainCalls: store.calls - before)
    }
}

/// A benchmark that could not measure what it was asked to.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A store that counts the calls it forwards to `base`.
final class CountingStore: KeychainStore {
    let base: any KeychainStore
    private let count = Atomic(0)

    init(base: any KeychainStore) { self.base = base }

    /// Every call made so far, of any kind.
    var calls: Int { count.load(ordering: .relaxed) }

    private func counted() { count.add(1, ordering: .relaxed) }

    func data(for key: KeychainKey) throws(KeychainError) -> Data? { counted(); return try base.data(for: key) }
    func setData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        counted(); try base.setData(data, for: key, label: label)
    }
    func removeData(for key: KeychainKey) throws(KeychainError) -> Bool { counted(); return try base.removeData(for: key) }
    func items(in scope: KeychainScope) throws(KeychainError) -> [KeychainItemInfo] { counted(); return try base.items(in: scope) }
    func removeAll(in group: AccessGroup) throws(KeychainError) -> Int { counted(); return try base.removeAll(in: group) }
    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        counted(); return try base.observeChanges(in: scope, handler)
    }

    func data(for key: KeychainKey) async throws(KeychainError) -> Data? { counted(); return try await base.data(for: key) }
    func setData(_ data: Data, for key: KeychainKey, label: String) async throws(KeychainError) {
        counted(); try await base.setData(data, for: key, label: label)
    }
    func removeData(for key: KeychainKey) async throws(KeychainError) -> Bool {
        counted(); return try await base.removeData(for: key)
    }
    func items(in scope: KeychainScope) async throws(KeychainError) -> [KeychainItemInfo] {
        counted(); return try await base.items(in: scope)
    }
    func removeAll(in group: AccessGroup) async throws(KeychainError) -> Int {
        counted(); return try await base.removeAll(in: group)
    }
    func observeChanges(
        in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) async throws(KeychainError) -> KeychainObservation {
        counted(); return try await base.observeChanges(in: scope, handler)
    }
}
