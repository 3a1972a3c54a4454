import Foundation
import SecretKeychain
import Testing

@Suite struct SecretServiceSchemaTests {
    @Test func privateAndSharedKeysDifferInScopeAndGroupOnly() throws {
        let group = try AccessGroup("TEAMID.com.example.group1")
        #expect(SecretServiceSchema.attributes(for: KeychainKey(service: "S", account: "A")) == [
            "xdg:schema": "org.keyringauth.KeychainItem.v1", "service": "S", "account": "A", "scope": "private",
        ])
        #expect(SecretServiceSchema.attributes(for: KeychainKey(service: "S", account: "A", accessGroup: group)) == [
            "xdg:schema": "org.keyringauth.KeychainItem.v1", "service": "S", "account": "A", "scope": "group",
            "access-group": "TEAMID.com.example.group1",
        ])
    }

    @Test func scopesSelectTheirItems() throws {
        let group = try AccessGroup("G")
        #expect(SecretServiceSchema.attributes(for: .all) == ["xdg:schema": "org.keyringauth.KeychainItem.v1"])
        #expect(SecretServiceSchema.attributes(for: .ungrouped)["scope"] == "private")
        #expect(SecretServiceSchema.attributes(for: .group(group)) == [
            "xdg:schema": "org.keyringauth.KeychainItem.v1", "scope": "group", "access-group": "G",
        ])
    }

    /// Text too: KeePassXC resolves placeholders such as `{TITLE}` in `text/plain` secrets.
    @Test func everySecretIsSentAsOctetStream() {
        #expect(SecretServiceSchema.contentType(for: Data("héllo {\"json\": 1}".utf8)) == "application/octet-stream")
        #expect(SecretServiceSchema.contentType(for: Data()) == "application/octet-stream")
        #expect(SecretServiceSchema.contentType(for: Data([0xFF, 0xFE, 0x00])) == "application/octet-stream")
        #expect(SecretServiceSchema.contentType(for: Data([0xC3])) == "application/octet-stream")
    }
}
