// The "Using the store" article's "Using SecretKeychain" and "Observing changes" blocks, as they are written there (a test
// checks that they appear in this file: their imports, then the rest verbatim). It writes to a keyring,
// then removes what it wrote: run it on a throwaway one, `dbus/with-keyring swift run secret-keychain-example`.
import Foundation
import SecretKeychain

@main struct SecretKeychainExample {
    /// In a function, not top-level code: there `try await store.data(for:)` picks the blocking call.
    static func main() async throws {
        // The article's first block.
        let store = SecretServiceStore()   // the collection behind the `default` alias, 5 s per D-Bus call
        let group = try AccessGroup("TEAMID.com.example.group1")
        let key = KeychainKey(service: "AIzaSy…", account: "firebase_auth_firebase_user", accessGroup: group)

        try await store.setData(Data(json.utf8), for: key, label: "Example app user")
        let data = try await store.data(for: key)            // nil when nothing is stored
        let items = try await store.items(in: .group(group))  // key, label, created, modified, size; never the secret
        try await store.removeData(for: key)

        // The article's second block.
        let observation = try await store.observeChanges(in: .group(group)) { change in
            print(change)   // "stored <key>" or "removed <key>": read the key again to see what it holds
        }
        // …
        observation.cancel()   // or release it

        // Not in the article: what the calls returned, and the item is gone.
        print("read back:", data.map { String(decoding: $0, as: UTF8.self) } ?? "nothing")
        print("listed:", items.map { "\($0.key) \($0.label)" })
        print("after removing:", try await store.data(for: key) == nil ? "nothing" : "still there")
    }
}
