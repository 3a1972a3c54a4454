import Foundation
import Testing

@testable import KeyringAuthEmulator

/// The Admin API's reply shapes, which the Admin SDKs read field by field (`AdminSDKTests` runs the SDK itself):
/// exactly what each answers, without a server.
@Suite struct AdminAPIShapeTests {
    let service = EmulatorService(configuration: .init())
    static let accounts = "/identitytoolkit.googleapis.com/v1/projects/demo-keyring-auth/accounts"

    private func call(
        _ method: String, _ target: String, _ body: [String: Any]? = nil, authorization: String? = "Bearer owner"
    ) throws -> (status: Int, reply: [String: Any]) {
        var headers = ["Content-Type": "application/json"]
        headers["Authorization"] = authorization
        let request = EmulatorRequest(
            method: method, target: target, headers: headers, body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data())
        let response = service.handle(request)
        return (response.status, try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:])
    }

    private func message(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

    @Test func createAndLookUpAnswerFirebasesFields() throws {
        let created = try call("POST", Self.accounts, ["localId": "ada", "email": "Ada@Example.com", "password": "secret-1", "phoneNumber": "+15555550100"])
        #expect(created.status == 200)
        #expect(created.reply as NSDictionary == ["kind": "identitytoolkit#SignupNewUserResponse", "localId": "ada", "email": "ada@example.com"])
        let found = try call("POST", Self.accounts + ":lookup", ["email": ["ADA@example.com"], "localId": ["ada", "nobody"]])
        let users = try #require(found.reply["users"] as? [[String: Any]])
        #expect(users.count == 1 && users[0]["localId"] as? String == "ada" && users[0]["phoneNumber"] as? String == "+15555550100")
        #expect(users[0]["createdAt"] is String && users[0]["validSince"] is String)
        #expect(users[0]["passwordHash"] == nil && users[0]["password"] == nil && users[0]["salt"] == nil, "no password, no hash")
        let methods = try #require(users[0]["providerUserInfo"] as? [[String: Any]]).compactMap { $0["providerId"] as? String }
        #expect(methods == ["password", "phone"])
        // No match: no `users` at all, and no error (the SDKs turn that into "user not found" themselves).
        let none = try call("POST", Self.accounts + ":lookup", ["localId": ["nobody"]])
        #expect(none.status == 200 && none.reply as NSDictionary == ["kind": "identitytoolkit#GetAccountInfoResponse"])
    }

    @Test func pagesBatchDeletionAndImportErrorsHaveTheirShapes() throws {
        for uid in ["u1", "u2", "u3"] { #expect(try call("POST", Self.accounts, ["localId": uid]).status == 200) }
        let first = try call("GET", Self.accounts + ":batchGet?maxResults=2")
        #expect((first.reply["users"] as? [[String: Any]])?.compactMap { $0["localId"] as? String } == ["u1", "u2"])
        #expect(first.reply["nextPageToken"] as? String == "u2")
        let last = try call("GET", Self.accounts + ":batchGet?maxResults=2&nextPageToken=u2")
        #expect((last.reply["users"] as? [[String: Any]])?.count == 1 && last.reply["nextPageToken"] == nil)

        let deleted = try call("POST", Self.accounts + ":batchDelete", ["localIds": ["u1", "missing"], "force": true])
        #expect(deleted.status == 200 && deleted.reply.isEmpty)
        let kept = try call("POST", Self.accounts + ":batchDelete", ["localIds": ["u2"]])
        #expect(kept.reply as NSDictionary == ["errors": [
            ["index": 0, "localId": "u2", "message": "NOT_DISABLED : Disable the account before batch deletion."],
        ]])

        let imported = try call("POST", Self.accounts + ":batchCreate", ["users": [
            ["localId": "new", "email": "new@example.com", "rawPassword": "secret-1"], ["localId": "u3"], ["email": "x@example.com"],
        ]])
        #expect(imported.reply as NSDictionary == ["kind": "identitytoolkit#UploadAccountResponse", "error": [
            ["index": 1, "message": "localId belongs to an existing account - can not overwrite."],
            ["index": 2, "message": "localId is missing"],
        ]])
        let counted = try call("POST", Self.accounts + ":query", ["returnUserInfo": false])
        #expect(counted.reply as NSDictionary == ["recordsCount": "3"])
    }

    @Test func callersWithoutTheOwnerTokenAreRefused() throws {
        let forged = try call("POST", Self.accounts + ":lookup", ["localId": ["x"]], authorization: "Bearer eyJhbGciOi")
        #expect(forged.status == 401 && (forged.reply["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        let app = try call("POST", Self.accounts + ":lookup?key=k", ["localId": ["x"]], authorization: nil)
        #expect(app.status == 400 && message(app.reply) == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        let anyone = try call("POST", Self.accounts + ":lookup", ["localId": ["x"]], authorization: nil)
        #expect(anyone.status == 403)
        // An app's own update may not set claims; the emulator's own API needs no credential, as Firebase's.
        let claims = try call("POST", "/identitytoolkit.googleapis.com/v1/accounts:update?key=k", ["idToken": "x", "customAttributes": "{}"], authorization: nil)
        #expect(claims.status == 400)
        #expect(try call("GET", "/emulator/v1/projects/demo-keyring-auth/config", authorization: nil).status == 200)
    }

    @Test func aRefusedUpdateChangesNothing() throws {
        #expect(try call("POST", Self.accounts, ["localId": "a", "email": "a@example.com", "phoneNumber": "+15555550100"]).status == 200)
        #expect(try call("POST", Self.accounts, ["localId": "b", "phoneNumber": "+15555550101"]).status == 200)
        // A new address first, then a phone number another account has: refused, and the address stays as it was.
        let refused = try call("POST", Self.accounts + ":update", ["localId": "a", "email": "new@example.com", "phoneNumber": "+15555550101"])
        #expect(message(refused.reply) == "PHONE_NUMBER_EXISTS")
        let byOld = try call("POST", Self.accounts + ":lookup", ["email": ["a@example.com"]]).reply["users"] as? [[String: Any]]
        #expect(byOld?.first?["localId"] as? String == "a" && byOld?.first?["phoneNumber"] as? String == "+15555550100")
        #expect(try call("POST", Self.accounts + ":lookup", ["email": ["new@example.com"]]).reply["users"] == nil)
        // The address is still free for another account.
        #expect(try call("POST", Self.accounts + ":update", ["localId": "b", "email": "new@example.com"]).status == 200)
    }

    @Test func malformedAdminRequestsGetTheServicesErrorsNeverACrash() throws {
        #expect(message(try call("POST", Self.accounts + ":update", [:]).reply) == "MISSING_LOCAL_ID")
        #expect(message(try call("POST", Self.accounts + ":update", ["localId": "nobody"]).reply) == "USER_NOT_FOUND")
        #expect(try call("POST", Self.accounts, ["localId": String(repeating: "x", count: 129)]).status == 400)
        #expect(message(try call("POST", Self.accounts + ":batchDelete", ["localIds": []]).reply) == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        #expect(message(try call("POST", Self.accounts + ":batchCreate", ["users": []]).reply) == "MISSING_USER_ACCOUNT")
        #expect(try call("POST", Self.accounts + ":lookup", ["federatedUserId": "not-a-list"]).status == 400)
        #expect(try call("GET", Self.accounts + ":batchGet?maxResults=many").status == 400)
        #expect(try call("DELETE", Self.accounts + ":lookup").status == 405)
        #expect(try call("POST", "/identitytoolkit.googleapis.com/v1/projects/demo-keyring-auth/tenants/bad%20id/accounts", [:]).status == 400)
        let v2 = "/identitytoolkit.googleapis.com/v2/projects/demo-keyring-auth/tenants"
        #expect(try call("PUT", v2).status == 405)
        #expect(try call("POST", v2, ["mfaConfig": ["state": "SOMETIMES"]]).status == 400)
    }
}
