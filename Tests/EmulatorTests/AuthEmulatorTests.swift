import CommandLineSupport
import Foundation
import KeyringAuth
import KeyringTestSupport
import Synchronization
import SystemSupport
import Testing

@testable import KeyringAuthEmulator

/// The emulator as other clients see it: the paths, body forms, token claims and error shapes of
/// Firebase's service, and its limits.
@Suite struct AuthEmulatorTests {
    private static let signUpPath = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
    private static let tokenPath = "/securetoken.googleapis.com/v1/token?key=k"

    private func claims(of token: String) throws -> (header: [String: Any], payload: [String: Any]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3 && parts[2].isEmpty, "an unsigned JWT: header.payload.")
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[0]))) as? [String: Any]
        let payload = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[1]))) as? [String: Any]
        return (try #require(header), try #require(payload))
    }

    @Test func theCommandLinesLongestTokenLifetimeIsTheEmulators() {
        #expect(EmulatorOptions.maximumTokenLifetimeSeconds == AuthEmulator.maximumTokenLifetimeSeconds)
    }

    @Test func idTokensCarryFirebasesClaims() async throws {
        let fixture = try await EmulatorFixture.start(tokenLifetime: .seconds(120))
        let (status, reply) = try await fixture.post(Self.signUpPath, body: #"{"returnSecureToken": true}"#)
        #expect(status == 200)
        #expect(reply["expiresIn"] as? String == "120", "the configured lifetime, as a string like Firebase's")
        let uid = try #require(reply["localId"] as? String)
        let (header, payload) = try claims(of: try #require(reply["idToken"] as? String))
        #expect(header["alg"] as? String == "none")
        #expect(payload["iss"] as? String == "https://securetoken.google.com/demo-keyring-auth")
        #expect(payload["aud"] as? String == "demo-keyring-auth")
        #expect(payload["sub"] as? String == uid && payload["user_id"] as? String == uid)
        let issuedAt = try #require(payload["iat"] as? Int)
        #expect(payload["exp"] as? Int == issuedAt + 120)
        #expect(payload["auth_time"] is Int)
        #expect((payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "anonymous")

        let (_, password) = try await fixture.post(Self.signUpPath, body: #"{"email": "a@b.c", "password": "secret1"}"#)
        let passwordClaims = try claims(of: try #require(password["idToken"] as? String)).payload
        #expect((passwordClaims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "password")
        #expect(passwordClaims["email"] as? String == "a@b.c")
    }

    @Test func theTokenEndpointTakesFormAndJSONBodies() async throws {
        let fixture = try await EmulatorFixture.start()
        let (_, reply) = try await fixture.post(Self.signUpPath, body: "returnSecureToken=true", contentType: "application/x-www-form-urlencoded")
        let refreshToken = try #require(reply["refreshToken"] as? String)
        let encoded = refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (formStatus, form) = try await fixture.post(
            Self.tokenPath, body: "grant_type=refresh_token&refresh_token=\(encoded)", contentType: "application/x-www-form-urlencoded")
        #expect(formStatus == 200)
        #expect(form["user_id"] as? String == reply["localId"] as? String)
        #expect(form["token_type"] as? String == "Bearer" && form["expires_in"] as? String == "3600")
        #expect(form["id_token"] as? String != nil && form["access_token"] as? String == form["id_token"] as? String)
        let (jsonStatus, _) = try await fixture.post(Self.tokenPath, body: #"{"grantType": "refresh_token", "refreshToken": "\#(refreshToken)"}"#)
        #expect(jsonStatus == 200, "Firebase's Apple SDK sends camel-case JSON")
    }

    @Test func refusalsHaveTheRealServicesShape() async throws {
        let fixture = try await EmulatorFixture.start()
        let (status, reply) = try await fixture.post(Self.signUpPath, body: #"{"email": "a@b.c", "password": "123"}"#)
        #expect(status == 400)
        let error = try #require(reply["error"] as? [String: Any])
        #expect(error["code"] as? Int == 400)
        #expect(error["message"] as? String == "WEAK_PASSWORD : Password should be at least 6 characters")
        let errors = try #require(error["errors"] as? [[String: Any]])
        #expect(errors.first?["reason"] as? String == "invalid" && errors.first?["domain"] as? String == "global")

        let (tokenStatus, tokenReply) = try await fixture.post(Self.tokenPath, body: #"{"grant_type": "password"}"#)
        let tokenError = try #require(tokenReply["error"] as? [String: Any])
        #expect(tokenStatus == 400 && tokenError["message"] as? String == "INVALID_GRANT_TYPE")
        #expect(tokenError["status"] as? String == "INVALID_ARGUMENT" && tokenError["errors"] == nil, "securetoken's own shape")
    }

    @Test func malformedRequestsAreAnsweredNeverCrashed() async throws {
        let fixture = try await EmulatorFixture.start()
        let cases: [(String, String, String, Int, String)] = [
            (Self.signUpPath, "{not json", "application/json", 400, "INVALID_ARGUMENT"),
            (Self.signUpPath, "[1, 2]", "application/json", 400, "INVALID_ARGUMENT"),
            (Self.signUpPath, #"{"email": 5, "password": "secret1"}"#, "application/json", 400, "INVALID_ARGUMENT"),
            (Self.signUpPath, #"{"returnSecureToken": "maybe"}"#, "application/json", 400, "INVALID_ARGUMENT"),
            (Self.signUpPath, #"{"email": "a@b.c"}"#, "application/json", 400, "MISSING_PASSWORD"),
            (Self.signUpPath, #"{"password": "secret1"}"#, "application/json", 400, "MISSING_EMAIL"),
            ("/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", "{}", "application/json", 400, "MISSING_ID_TOKEN"),
            ("/identitytoolkit.googleapis.com/v1/accounts:update?key=k", #"{"idToken": "a.b.c"}"#, "application/json", 400, "INVALID_ID_TOKEN"),
            ("/identitytoolkit.googleapis.com/v1/accounts:nope?key=k", "{}", "application/json", 404, "Not Found"),
            ("/identitytoolkit.googleapis.com/v1/accounts:signUp", "{}", "application/json", 403, "The request is missing a valid API key."),
            (Self.tokenPath, "grant_type=refresh_token", "application/x-www-form-urlencoded", 400, "MISSING_REFRESH_TOKEN"),
            (Self.tokenPath, "", "application/x-www-form-urlencoded", 400, "MISSING_GRANT_TYPE"),
        ]
        for (path, body, type, status, message) in cases {
            let (gotStatus, reply) = try await fixture.post(path, body: body, contentType: type)
            let error = reply["error"] as? [String: Any]
            #expect(gotStatus == status, "\(path) \(body)")
            #expect((error?["message"] as? String)?.hasPrefix(message) == true, "\(path) \(body): \(reply)")
        }
        #expect(fixture.emulator.accounts.isEmpty)
    }

    @Test func anOversizedBodyIsRefusedWithoutBeingRead() async throws {
        let emulator = AuthEmulator(configuration: .init(port: 0, maximumRequestBytes: 1024, logger: EmulatorFixture.quietLogger))
        let address = try await emulator.start()
        let padding = String(repeating: "x", count: 4096)
        let request = "POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(padding.count + 20)\r\n\r\n{\"displayName\": \"\(padding)\"}"
        let answer = String(decoding: try RawTCP.exchange(host: address.host, port: address.port, bytes: Array(request.utf8)), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 413"))
        #expect(answer.contains("PAYLOAD_TOO_LARGE"))
        #expect(emulator.accounts.isEmpty)
        await emulator.stop()
    }

    @Test func garbageOnTheSocketLeavesTheServerServing() async throws {
        let fixture = try await EmulatorFixture.start()
        var generator = SystemRandomNumberGenerator()
        let inputs: [[UInt8]] = [
            Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n".utf8),
            Array("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n".utf8),
            Array("\u{0}\u{1}\u{2} HTTP/9.9\r\n\r\n".utf8),
            Array(repeating: UInt8(ascii: "A"), count: 100_000),
        ] + (0..<20).map { _ in (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for input in inputs {
            _ = try? fixture.rawExchange(input)
        }
        let user = try await fixture.backend.signUpAnonymously(tenantID: nil)
        #expect(fixture.emulator.accounts.map(\.localId) == [user.uid])
    }

    @Test func accountsExportAndImportWithoutPasswordsUnlessAsked() async throws {
        let fixture = try await EmulatorFixture.start()
        let user = try await fixture.backend.signUp(email: "exported@example.com", password: "kept-secret", tenantID: nil)
        _ = try await fixture.backend.update(idToken: user.tokens.idToken, changes: AccountChanges(displayName: "Ex"))

        let plain = fixture.emulator.exportAccounts()
        #expect(!String(decoding: plain, as: UTF8.self).contains("kept-secret"))
        let object = try JSONSerialization.jsonObject(with: plain) as? [String: Any]
        #expect(object?["kind"] as? String == "identitytoolkit#DownloadAccountResponse")

        let withPasswords = fixture.emulator.exportAccounts(includingPasswords: true)
        let copy = try await EmulatorFixture.start()
        try copy.emulator.importAccounts(withPasswords)
        let signedIn = try await copy.backend.signIn(email: "exported@example.com", password: "kept-secret", tenantID: nil)
        #expect(signedIn.uid == user.uid)
        #expect(try await copy.backend.lookUp(idToken: signedIn.tokens.idToken).displayName == "Ex")

        #expect(throws: AuthEmulatorError.self) { try copy.emulator.importAccounts(Data("{\"users\": [{}]}".utf8)) }
        #expect(throws: AuthEmulatorError.self) { try copy.emulator.importAccounts(Data("not json".utf8)) }
        let duplicate = #"{"users": [{"localId": "a", "email": "x@y.z"}, {"localId": "b", "email": "X@y.z"}]}"#
        #expect(throws: AuthEmulatorError.self) { try copy.emulator.importAccounts(Data(duplicate.utf8)) }
        #expect(copy.emulator.accounts.map(\.localId) == [user.uid], "a refused import changes nothing")
    }

    @Test func concurrentStartsShareOneListener() async throws {
        // A fixed port, free a moment ago: another test's listener on port 0 may take it in between, so a port
        // found taken is replaced by another (at most five tries); a start that fails otherwise fails the test.
        for attempt in 1...5 {
            let probe = try await EmulatorFixture.start()
            let port = probe.address.port
            await probe.emulator.stop()
            let emulator = AuthEmulator(configuration: .init(port: port, logger: EmulatorFixture.quietLogger))
            async let first = emulator.start()
            async let second = emulator.start()
            let a: AuthEmulator.Address, b: AuthEmulator.Address
            do {
                (a, b) = try await (first, second)
            } catch where attempt < 5 && "\(error)".contains("Address already in use") {
                continue
            }
            #expect(a == b && a.port == port)
            await emulator.stop()
            #expect(emulator.address == nil)
            return
        }
    }

    @Test func unusableSettingsAreTypedErrors() async throws {
        for configuration in [
            AuthEmulator.Configuration(port: 0, tokenLifetime: .seconds(AuthEmulator.maximumTokenLifetimeSeconds + 1)),
            AuthEmulator.Configuration(port: 0, tokenLifetime: .zero),
            AuthEmulator.Configuration(port: 70000),
            AuthEmulator.Configuration(port: 0, maximumRequestBytes: 0),
        ] {
            await #expect(throws: AuthEmulatorError.self) { try await AuthEmulator(configuration: configuration).start() }
        }
        let emulator = AuthEmulator(configuration: .init(port: 0))
        for field in ["validSince", "createdAt", "lastLoginAt"] {
            for value in ["\"-9223372036854775807\"", "9223372036854775807", "\"soon\""] {
                let file = #"{"users": [{"localId": "u", "email": "a@b.c", "rawPassword": "secret1", "\#(field)": \#(value)}]}"#
                #expect(throws: AuthEmulatorError.self, "\(field) \(value)") { try emulator.importAccounts(Data(file.utf8)) }
            }
        }
        #expect(emulator.accounts.isEmpty)
    }

    @Test func aBusyPortIsATypedError() async throws {
        let first = try await EmulatorFixture.start()
        let second = AuthEmulator(configuration: .init(port: first.address.port, logger: EmulatorFixture.quietLogger))
        await #expect(throws: AuthEmulatorError.self) { try await second.start() }
    }

    @Test func expiredIDTokensAreRefusedByTheClock() throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let service = EmulatorService(configuration: .init(tokenLifetime: .seconds(60)), clock: { now.withLock { $0 } })
        func call(_ path: String, _ body: [String: Any]) throws -> [String: Any] {
            let request = EmulatorRequest(
                method: "POST", target: path + "?key=k", headers: ["Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: body))
            return try JSONSerialization.jsonObject(with: service.handle(request).body) as? [String: Any] ?? [:]
        }
        let signUp = try call("/identitytoolkit.googleapis.com/v1/accounts:signUp", [:])
        let idToken = try #require(signUp["idToken"] as? String)
        #expect(try call("/identitytoolkit.googleapis.com/v1/accounts:lookup", ["idToken": idToken])["users"] != nil)
        now.withLock { $0 += 61 }
        let expired = try call("/identitytoolkit.googleapis.com/v1/accounts:lookup", ["idToken": idToken])
        #expect((expired["error"] as? [String: Any])?["message"] as? String == "TOKEN_EXPIRED")
    }
}
