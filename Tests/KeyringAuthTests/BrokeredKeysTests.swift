import SecretKeychain
import Testing

@testable import KeyringAuth

/// The keys the broker's item interface serves and how it keeps a sandboxed app's private items apart.
@Suite struct BrokeredKeysTests {
    static let options = AuthAppOptions(apiKey: "AIza-a", appID: "1:42:linux:notes", projectID: "p")
    static let group = try! AccessGroup("TEAMID.com.example.shared")

    @Test func onlyTheItemsAuthKeepsAreServed() {
        #expect(StoredUserKeys.isAuthItem(StoredUserKeys.privateUser(Self.options)))
        #expect(StoredUserKeys.isAuthItem(StoredUserKeys.sharedUser(Self.options, in: Self.group)))
        #expect(StoredUserKeys.isAuthItem(StoredUserKeys.legacyAccessGroupChoice(Self.options)))
        #expect(!StoredUserKeys.isAuthItem(KeychainKey(service: "org.example.Passwords", account: "ada")))
        #expect(!StoredUserKeys.isAuthItem(KeychainKey(service: "AIza-a", account: "ada", accessGroup: Self.group)))
        #expect(!StoredUserKeys.isAuthItem(KeychainKey(service: "firebase_auth_x", account: "firebase_auth_1_")))
    }

    @Test func aSandboxedAppsPrivateItemsAreKeptUnderItsAppID() throws {
        let key = StoredUserKeys.privateUser(Self.options)
        let notes = "flatpak:com.example.Notes:"
        let stored = StoredUserKeys.brokered(key, privateNamespace: notes)
        #expect(stored.service == key.service && stored.account == "firebase_auth_1_flatpak:com.example.Notes:[DEFAULT]_firebase_user")
        // The same item the broker's own calls keep for the app (its app name prefixed by the namespace).
        var brokerOptions = Self.options
        brokerOptions.appName = notes + brokerOptions.appName
        #expect(stored == StoredUserKeys.privateUser(brokerOptions))
        #expect(StoredUserKeys.unbrokered(stored, privateNamespace: notes) == key)
        // Another app never learns it, even by naming an app name that looks like a namespace.
        #expect(StoredUserKeys.unbrokered(stored, privateNamespace: "flatpak:org.evil.App:") == nil)
        var crafted = key
        crafted.account = "firebase_auth_1_flatpak:com.example.Notes:[DEFAULT]_firebase_user"
        #expect(StoredUserKeys.brokered(crafted, privateNamespace: "flatpak:org.evil.App:").account.hasPrefix("firebase_auth_1_flatpak:org.evil.App:"))
        // Groups and host callers are as they are.
        let shared = StoredUserKeys.sharedUser(Self.options, in: Self.group)
        #expect(StoredUserKeys.brokered(shared, privateNamespace: notes) == shared)
        #expect(StoredUserKeys.brokered(key, privateNamespace: "") == key)
    }
}
