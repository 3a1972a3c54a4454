import Foundation
import SecretKeychain
import Testing
@testable import KeyringAuthBroker

/// `Keychain1`'s share for a sandboxed app: eight new items a scope, 32 in all, counted by the broker's own labels;
/// a key the app has is always replaced.
@Suite struct KeychainQuotaTests {
    let caller = Caller.flatpak(appID: "com.example.Notes")

    private func key(_ index: Int, group: String? = nil) throws -> KeychainKey {
        try KeychainKey(service: "firebase_auth_1_app\(index)", account: "firebase_auth_1_app\(index)", accessGroup: group.map { try AccessGroup($0) })
    }

    private func items(_ keys: [KeychainKey], labelledFor caller: Caller) -> [KeychainItemInfo] {
        keys.map { KeychainItemInfo(key: $0, label: KeychainQuota.label(of: $0, for: caller), created: .now, modified: .now, size: 10) }
    }

    @Test func aScopeTakesEightNewItems() throws {
        let seven = items(try (0..<7).map { try key($0) }, labelledFor: caller)
        try KeychainQuota.check(storing: try key(7), for: caller, among: seven)
        let eight = items(try (0..<8).map { try key($0) }, labelledFor: caller)
        #expect(throws: BrokerError.self) { try KeychainQuota.check(storing: try key(8), for: caller, among: eight) }
        // Replacing one it has is allowed.
        try KeychainQuota.check(storing: try key(3), for: caller, among: eight)
    }

    @Test func anotherAppsItemsTakeNothingFromTheShare() throws {
        let others = items(try (0..<8).map { try key($0) }, labelledFor: .flatpak(appID: "com.example.Other"))
        try KeychainQuota.check(storing: try key(9), for: caller, among: others)
    }

    @Test func allScopesTogetherTakeThirtyTwo() throws {
        let groups = ["TEAMID.com.example.a", "TEAMID.com.example.b", "TEAMID.com.example.c", "TEAMID.com.example.d"]
        let full = items(try groups.flatMap { group in try (0..<8).map { try key($0, group: group) } }, labelledFor: caller)
        #expect(full.count == KeychainQuota.maximumPerApp)
        #expect(throws: BrokerError.self) { try KeychainQuota.check(storing: try key(0), for: caller, among: full) }
    }
}
