import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth

@Suite struct StoredUserRecordTests {
    static let options = AuthAppOptions(appName: "app-a", apiKey: "AIzaKey", appID: "1:42:linux:aaa", projectID: "demo")
    static let group = try! AccessGroup("TEAMID.com.example.group1")

    @Test func keysMirrorFirebasesLayout() {
        #expect(StoredUserKeys.privateUser(Self.options)
            == KeychainKey(service: "firebase_auth_1:42:linux:aaa", account: "firebase_auth_1_app-a_firebase_user"))
        #expect(StoredUserKeys.sharedUser(Self.options, in: Self.group)
            == KeychainKey(service: "AIzaKey", account: "firebase_auth_firebase_user", accessGroup: Self.group))
        var otherApp = Self.options
        otherApp.appName = "app-b"
        otherApp.appID = "1:42:linux:bbb"
        #expect(StoredUserKeys.sharedUser(otherApp, in: Self.group) == StoredUserKeys.sharedUser(Self.options, in: Self.group))
        #expect(StoredUserKeys.privateUser(otherApp) != StoredUserKeys.privateUser(Self.options))
    }

    static let record = StoredUserRecord(
        uid: "uid-1", isAnonymous: false, hasEmailPassword: true, email: "a@example.com", emailVerified: true,
        displayName: "A", photoURL: URL(string: "https://example.com/a.png"), phoneNumber: nil,
        providerData: [ProviderUserInfo(providerID: "password", uid: "a@example.com", email: "a@example.com")],
        creationDate: Date(timeIntervalSince1970: 1_700_000_000), lastSignInDate: Date(timeIntervalSince1970: 1_700_000_500.25),
        tenantID: nil, apiKey: "AIzaKey", appID: "1:42:linux:aaa",
        tokens: AuthTokens(idToken: "id", refreshToken: "refresh", expirationDate: Date(timeIntervalSince1970: 1_700_003_600)))

    @Test func roundTripsThroughTheStoredForm() throws {
        let key = StoredUserKeys.privateUser(Self.options)
        #expect(try StoredUserRecord.decode(Self.record.encoded(), key: key) == Self.record)
        let json = String(decoding: Self.record.encoded(), as: UTF8.self)
        #expect(json.hasPrefix(#"{"apiKey":"AIzaKey","appID":"1:42:linux:aaa","creationDate":1700000000000,"#))
        #expect(json.contains(#""version":1"#))
    }

    @Test func unknownFieldsAreIgnored() throws {
        var object = try JSONSerialization.jsonObject(with: Self.record.encoded()) as! [String: Any]
        object["addedInVersion7"] = ["nested": true]
        object["version"] = 7
        let data = try JSONSerialization.data(withJSONObject: object)
        let decoded = try StoredUserRecord.decode(data, key: StoredUserKeys.privateUser(Self.options))
        #expect(decoded.uid == "uid-1")
        #expect(decoded.tokens == Self.record.tokens)
    }

    @Test(arguments: [
        ("not json", "The given data was not valid JSON"),
        (#"{"uid": "x"}"#, "is missing"),
        (#"[1, 2]"#, "Expected to decode Dictionary"),
        ("", "The given data was not valid JSON"),
    ])
    func aRecordThatDoesNotDecodeIsATypedError(_ stored: String, _ reason: String) {
        let key = StoredUserKeys.sharedUser(Self.options, in: Self.group)
        #expect {
            try StoredUserRecord.decode(Data(stored.utf8), key: key)
        } throws: { error in
            guard let error = error as? AuthError, error.code == .corruptStoredUser else { return false }
            return error.message.contains(reason) && error.message.contains("It was left as it is")
        }
    }
}
