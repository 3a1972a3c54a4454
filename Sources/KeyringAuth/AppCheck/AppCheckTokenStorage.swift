import Foundation
import SecretKeychain

/// Where an app's App Check token is kept between its processes: one keyring item per Firebase app and app name, as
/// Apple's App Check keeps it in the keychain, in the access group of `FirebaseOptions.appGroupID` when the options
/// name one. What is read is untrusted (any process of the session can write the item): bounded, and checked.
package struct AppCheckTokenStorage: Sendable {
    static let service = "com.google.app_check_core.token_storage"
    static let maximumBytes = 16 * 1024

    let store: any KeychainStore
    let key: KeychainKey

    package init(store: any KeychainStore, appName: String, projectID: String, appID: String, group: AccessGroup?) {
        self.store = store
        self.key = KeychainKey(
            service: Self.service, account: "app_check_token.FirebaseApp:\(appName).projects/\(projectID)/apps/\(appID)", accessGroup: group)
    }

    private struct Stored: Codable {
        let token: String
        let expirationDate: Double
        let receivedAtDate: Double
        let storageVersion: Int
    }

    /// The token stored, or `nil` when there is none or what is there is not a token that could be (too large,
    /// unsendable, received in the future, living longer than seven days).
    func read(now: Date) async throws(KeychainError) -> AppCheckToken? {
        guard let data = try await store.data(for: key) else { return nil }
        return Self.decode(data, now: now)
    }

    func write(_ token: AppCheckToken) async throws(KeychainError) {
        let stored = Stored(
            token: token.token, expirationDate: token.expirationDate.timeIntervalSince1970,
            receivedAtDate: token.receivedAtDate.timeIntervalSince1970, storageVersion: 2)
        try await store.setData(try! JSONEncoder().encode(stored), for: key, label: "Firebase App Check token")
    }

    static func decode(_ data: Data, now: Date) -> AppCheckToken? {
        guard data.count <= maximumBytes, let stored = try? JSONDecoder().decode(Stored.self, from: data),
            stored.expirationDate.isFinite, stored.receivedAtDate.isFinite
        else { return nil }
        let token = AppCheckToken(
            token: stored.token, expirationDate: Date(timeIntervalSince1970: stored.expirationDate),
            receivedAtDate: Date(timeIntervalSince1970: stored.receivedAtDate))
        let lifetime = token.expirationDate.timeIntervalSince(token.receivedAtDate)
        guard token.isSendable, token.receivedAtDate <= now.addingTimeInterval(60), lifetime > 0, lifetime <= 7 * 24 * 3600 + 60 else {
            return nil
        }
        return token
    }
}
