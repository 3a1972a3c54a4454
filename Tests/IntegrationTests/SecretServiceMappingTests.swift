import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// The item layout other apps, other languages and later versions rely on (the "Using the store" article's mapping table).
    @Suite struct SecretServiceMapping {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        @Test func itemsCarryExactlyTheDocumentedAttributesAndLabel() async throws {
            let store = SecretServiceStore()
            let group = try AccessGroup("TEAMID.com.example.mapping")
            let unshared = uniqueKey()
            let shared = KeychainKey(service: unshared.service, account: unshared.account, accessGroup: group)
            try await store.setData(.text("text ✓"), for: shared, label: "Shared user")
            try await store.setData(Data([0xFF, 0x00, 0xFE]), for: unshared, label: "Private user")

            let items = try RawSecretService.items(matching: ["service": unshared.service])
            #expect(items.count == 2)
            let sharedItem = try #require(items.first { $0.attributes["scope"] == "group" })
            #expect(ours(sharedItem) == [
                "xdg:schema": "org.keyringauth.KeychainItem.v1", "service": unshared.service,
                "account": "firebase_auth_firebase_user", "scope": "group", "access-group": "TEAMID.com.example.mapping",
            ])
            #expect(sharedItem.label == "Shared user")
            #expect(sharedItem.secret == .text("text ✓"))
            #expect(sharedItem.path.hasPrefix(harness.defaultCollection + "/"))

            let privateItem = try #require(items.first { $0.attributes["scope"] == "private" })
            #expect(ours(privateItem) == [
                "xdg:schema": "org.keyringauth.KeychainItem.v1", "service": unshared.service,
                "account": "firebase_auth_firebase_user", "scope": "private",
            ])
            #expect(privateItem.label == "Private user")
            #expect(privateItem.secret == Data([0xFF, 0x00, 0xFE]))
            try await store.removeData(for: shared)
            try await store.removeData(for: unshared)
        }

        /// An item's attributes without those the provider adds of its own: KeePassXC lists its
        /// entry's fields (Title, the label; Path, "/" and the label; UserName, URL, Notes, Uuid)
        /// and, for a secret it keeps as an attachment, its content type.
        private func ours(_ item: RawSecretService.RawItem) -> [String: String] {
            guard harness.provider == .keepassxc else { return item.attributes }
            let added: Set = ["Title", "Path", "UserName", "URL", "Notes", "Uuid", "FDO_SECRETS_CONTENT_TYPE"]
            #expect(item.attributes["Title"] == item.label && item.attributes["Path"] == "/" + item.label, "\(item.attributes)")
            #expect(item.attributes["FDO_SECRETS_CONTENT_TYPE"] == "application/octet-stream", "\(item.attributes)")
            return item.attributes.filter { !added.contains($0.key) }
        }

        /// gnome-keyring does not keep content types (it answers text/plain for every secret), so
        /// what the store sends is read off the bus, where the secret itself is encrypted.
        @Test func contentTypeIsSentAndTheSecretNeverCrossesTheBusReadable() async throws {
            let store = SecretServiceStore()
            let text = uniqueKey(in: uniqueGroup()), binary = uniqueKey(in: uniqueGroup())
            let canary = "plaintext-canary-\(UUID().uuidString)"
            let monitor = try await BusMonitor(
                matching: "type='method_call',interface='org.freedesktop.Secret.Collection',member='CreateItem'",
                harness: harness)
            try await store.setData(.text(canary), for: text, label: "text")
            try await store.setData(Data([0xFF, 0x00, 0xFE]), for: binary, label: "binary")
            let traffic = try await monitor.stop()

            let contentTypes = traffic.split(separator: "\n")
                .filter { $0.contains("string \"text/plain\"") || $0.contains("string \"application/octet-stream\"") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(contentTypes == [#"string "application/octet-stream""#, #"string "application/octet-stream""#])
            let canaryHex = canary.utf8.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            #expect(traffic.contains(text.service))
            #expect(!traffic.contains(canary) && !traffic.contains(canaryHex))

            try await store.removeData(for: text)
            try await store.removeData(for: binary)
        }

        /// Where the providers differ in what they keep of an item (the Secret Service providers article's table):
        /// the content type, the label of a replaced item, and the D-Bus error for an item path
        /// that does not exist.
        @Test func whatEachProviderKeeps() async throws {
            let store = SecretServiceStore()
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("first"), for: key, label: "first label")
            try await store.setData(.text("second"), for: key, label: "second label")
            let items = try RawSecretService.items(matching: SecretServiceSchema.attributes(for: key))
            #expect(items.map(\.secret) == [.text("second")])
            // The store sends application/octet-stream; gnome-keyring answers text/plain for everything.
            #expect(items.map(\.contentType) == [harness.provider == .gnomeKeyring ? "text/plain" : "application/octet-stream"])
            // KWallet names its entries by their label, and keeps it when an item is replaced.
            #expect(items.map(\.label) == [harness.provider.replacesLabel ? "second label" : "first label"])
            try await store.removeData(for: key)

            let missing = try await Subprocess.run("gdbus", [
                "call", "--session", "--timeout", "10", "--dest", "org.freedesktop.secrets",
                "--object-path", harness.defaultCollection + "/no_such_item", "--method", "org.freedesktop.DBus.Properties.Get",
                "org.freedesktop.Secret.Item", "Label",
            ])
            let expected = switch harness.provider {
            case .gnomeKeyring: "org.freedesktop.DBus.Error.UnknownMethod"
            case .keepassxc, .kwallet: "org.freedesktop.DBus.Error.UnknownObject"
            }
            #expect(missing.status != 0 && missing.standardError.contains("GDBus.Error:\(expected):"), "\(missing.standardError)")
        }

        @Test func anItemStoredBySecretToolIsRead() async throws {
            let key = uniqueKey(in: try AccessGroup("TEAMID.com.example.secret-tool"))
            let stored = try await SecretTool.run([
                "store", "--label=Stored by secret-tool",
                "xdg:schema", "org.keyringauth.KeychainItem.v1", "service", key.service, "account", key.account,
                "scope", "group", "access-group", "TEAMID.com.example.secret-tool",
            ], input: .text("from secret-tool"))
            try stored.requireSuccess("secret-tool store")
            let store = SecretServiceStore()
            #expect(try await store.data(for: key) == .text("from secret-tool"))
            #expect(try await store.items(in: .group(key.accessGroup!)).map(\.label) == ["Stored by secret-tool"])
            #expect(try await store.removeData(for: key))
        }

        @Test func anItemStoredByTheStoreIsFoundBySecretTool() async throws {
            let key = uniqueKey(in: try AccessGroup("TEAMID.com.example.secret-tool"))
            let store = SecretServiceStore()
            try await store.setData(.text("from the store"), for: key, label: "KeyringAuth user in TEAMID.com.example.secret-tool")

            let lookup = try await SecretTool.run([
                "lookup", "service", key.service, "account", key.account, "scope", "group",
                "access-group", "TEAMID.com.example.secret-tool",
            ])
            try lookup.requireSuccess("secret-tool lookup")
            #expect(lookup.output == "from the store")

            let search = try await SecretTool.run(["search", "--all", "service", key.service])
            try search.requireSuccess("secret-tool search")
            let printed = search.output + search.standardError
            #expect(printed.contains("label = KeyringAuth user in TEAMID.com.example.secret-tool"))
            #expect(printed.contains("attribute.access-group = TEAMID.com.example.secret-tool"))
            #expect(printed.contains("attribute.scope = group"))
            #expect(printed.contains("schema = org.keyringauth.KeychainItem.v1"))
            try await store.removeData(for: key)

            let gone = try await SecretTool.run(["lookup", "service", key.service])
            #expect(gone.status == 1)
        }

        @Test func theSessionCollectionIsKeptApartFromTheDefaultOne() async throws {
            let sessionStore = SecretServiceStore(configuration: .init(collection: .sessionAlias))
            let defaultStore = SecretServiceStore()
            let key = uniqueKey(in: uniqueGroup())
            guard harness.provider.hasSessionCollection else {
                // KeePassXC and KWallet have no session collection (the alias answers "/"): the store
                // says so, and creates none.
                await #expect { try await sessionStore.setData(.text("x"), for: key, label: "session item") } throws: {
                    ($0 as? KeychainError)?.code == "noSuchCollection"
                }
                #expect(try RawSecretService.items(matching: ["service": key.service]).isEmpty)
                return
            }
            try await sessionStore.setData(.text("in memory only"), for: key, label: "session item")
            #expect(try await sessionStore.data(for: key) == .text("in memory only"))
            #expect(try await defaultStore.data(for: key) == nil)
            let raw = try RawSecretService.items(matching: ["service": key.service])
            #expect(raw.map { $0.path.hasPrefix("/org/freedesktop/secrets/collection/session/") } == [true])
            try await sessionStore.removeData(for: key)
        }
    }
}
