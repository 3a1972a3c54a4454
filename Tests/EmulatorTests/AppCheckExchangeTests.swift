import Foundation
import SystemSupport
import Testing

@testable import KeyringAuthEmulator

/// App Check's exchanges on the emulator, over HTTP: an app's debug token and a backend's custom token for a token
/// naming the app and the project, with App Check's refusals, the `ttl` as a protocol buffer duration, and each
/// exchange kept for tests that count them.
@Suite struct AppCheckExchangeTests {
    typealias Emulator = AppCheckEmulator

    @Test func aRegisteredDebugTokenIsExchangedForATokenNamingTheAppAndTheProject() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        let reply = try await emulator.exchangeDebugToken(["debugToken": Emulator.debugToken, "limitedUse": false])
        #expect(reply.status == 200, "\(reply.object)")
        #expect(reply.object["ttl"] as? String == "3600s" && reply.object.count == 2)
        let token = try #require(reply.object["token"] as? String)
        let (header, claims) = try Emulator.decode(token)
        #expect(header["alg"] as? String == "HS256" && header["typ"] as? String == "JWT")
        #expect((header["kid"] as? String)?.isEmpty == false)
        #expect(claims["iss"] as? String == "https://firebaseappcheck.googleapis.com/1234567890", "the app ID's project number")
        #expect(claims["sub"] as? String == Emulator.appID)
        #expect(claims["aud"] as? [String] == ["projects/1234567890", "projects/demo-keyring-auth"])
        let now = Int(emulator.clock.now.withLock { $0 }.timeIntervalSince1970)
        #expect(claims["iat"] as? Int == now && claims["exp"] as? Int == now + 3600)
        #expect(claims["limited_use"] == nil && claims["jti"] == nil)
        #expect(!token.contains(Emulator.debugToken))
        #expect(emulator.emulator.appCheckExchanges == [.init(method: .exchangeDebugToken, appID: Emulator.appID, limitedUse: false, issued: true)])
    }

    /// The API key as a header, the body's names in snake_case, a limited-use token, an app ID of another form, and a
    /// configured lifetime.
    @Test func theExchangeTakesEitherFormAndALimitedUseToken() async throws {
        let emulator = try await Emulator.enforcing(tokenLifetime: .seconds(90))
        defer { Task { await emulator.stop() } }
        let path = Emulator.exchangePrefix + "demo-keyring-auth/apps/my-test-app:exchangeDebugToken"
        let reply = try await emulator.send(path, ["debug_token": Emulator.debugToken, "limited_use": true], headers: ["X-Goog-Api-Key": "k"])
        #expect(reply.status == 200, "\(reply.object)")
        #expect(reply.object["ttl"] as? String == "90s")
        let claims = try Emulator.decode(try #require(reply.object["token"] as? String)).claims
        #expect(claims["iss"] as? String == "https://firebaseappcheck.googleapis.com/demo-keyring-auth", "no project number in the app ID")
        #expect(claims["aud"] as? [String] == ["projects/demo-keyring-auth"] && claims["sub"] as? String == "my-test-app")
        #expect(claims["exp"] as? Int == (claims["iat"] as? Int).map { $0 + 90 })
        #expect(claims["limited_use"] as? Bool == true && (claims["jti"] as? String)?.isEmpty == false)
        #expect(emulator.emulator.appCheckExchanges.last == .init(method: .exchangeDebugToken, appID: "my-test-app", limitedUse: true, issued: true))
    }

    @Test func anUnknownDebugTokenIsRefusedAsAppCheckRefusesIt() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        let reply = try await emulator.exchangeDebugToken(["debugToken": "00000000-0000-0000-0000-000000000000"])
        #expect(reply.status == 403)
        let expected = #"{"error":{"code":403,"message":"App attestation failed.","status":"PERMISSION_DENIED"}}"#
        #expect(String(decoding: reply.data, as: UTF8.self) == expected)
        #expect(emulator.emulator.appCheckExchanges == [
            .init(method: .exchangeDebugToken, appID: Emulator.appID, limitedUse: false, issued: false),
        ], "a refused exchange counts too")

        // Without App Check's settings (firebase-tools' way), the exchange is served and refuses every debug token.
        let plain = try await Emulator.start(nil)
        defer { Task { await plain.stop() } }
        #expect(try await plain.exchangeDebugToken(["debugToken": Emulator.debugToken]).status == 403)
        let unenforced = try await Emulator.start(.init(debugTokens: [Emulator.debugToken]))
        defer { Task { await unenforced.stop() } }
        #expect(try await unenforced.exchangeDebugToken(["debugToken": Emulator.debugToken]).status == 200, "registered, not enforced")
    }

    @Test func malformedExchangesAreRefusedWithAppChecksCodes() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        func status(_ reply: AppCheckEmulator.Reply) -> (Int, String?) { (reply.status, reply.error?["status"] as? String) }
        let invalid = (400, Optional("INVALID_ARGUMENT"))
        #expect(status(try await emulator.exchangeDebugToken([String: Any]())) == invalid, "no debug token")
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": ""])) == invalid)
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": 42])) == invalid)
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": Emulator.debugToken, "limitedUse": "sometimes"])) == invalid)
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": String(repeating: "a", count: 1025)])) == invalid)
        #expect(status(try await emulator.exchangeDebugToken("{not json")) == invalid)
        #expect(status(try await emulator.exchangeDebugToken("[1, 2]")) == invalid)
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": Emulator.debugToken], app: "an%20app")) == invalid, "not an app ID")
        #expect(status(try await emulator.exchangeDebugToken(["debugToken": Emulator.debugToken], key: nil)) == (403, "PERMISSION_DENIED"), "no API key")
        let otherProject = try await emulator.exchangeDebugToken(["debugToken": Emulator.debugToken], project: "someone-elses")
        #expect(status(otherProject) == invalid, "as the emulator's other paths refuse another project")
        #expect((otherProject.error?["message"] as? String)?.hasPrefix("INVALID_PROJECT_ID") == true)
        #expect(otherProject.error?["errors"] == nil, "Google's shape: code, message, status")
        let get = try await emulator.send(Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID):exchangeDebugToken?key=k", method: "GET")
        #expect(get.status == 405)
        let path = Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID)"
        #expect(try await emulator.send(path + ":exchangeSafetyNetToken?key=k", [String: Any]()).status == 501, "not offered")
        #expect(try await emulator.send(path + ":somethingElse?key=k", [String: Any]()).status == 404)
        #expect(try await emulator.send(path + "?key=k", [String: Any]()).status == 404)
        #expect(emulator.emulator.appCheckExchanges.allSatisfy { !$0.issued })
    }

    @Test func anAdministratorsCustomTokenIsExchangedForItsLifetimeWithinFirebasesBounds() async throws {
        let emulator = try await Emulator.start(nil)
        defer { Task { await emulator.stop() } }
        let path = Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID):exchangeCustomToken"
        func ttl(_ body: [String: Any]) async throws -> String? {
            let reply = try await emulator.admin(path, body)
            #expect(reply.status == 200, "\(reply.object)")
            let token = try #require(reply.object["token"] as? String)
            let claims = try Emulator.decode(token).claims
            #expect(claims["sub"] as? String == Emulator.appID)
            #expect("\(((claims["exp"] as? Int) ?? 0) - ((claims["iat"] as? Int) ?? 0))s" == reply.object["ttl"] as? String)
            return reply.object["ttl"] as? String
        }
        #expect(try await ttl(["customToken": "any-backend-proof"]) == "3600s", "one hour unless asked")
        #expect(try await ttl(["customToken": "x", "ttl": "7200s"]) == "7200s")
        #expect(try await ttl(["customToken": "x", "ttl": "5400.250000000s"]) == "5400s", "a fraction, dropped")
        #expect(try await ttl(["customToken": "x", "ttl": "60s"]) == "1800s", "at least 30 minutes")
        #expect(try await ttl(["custom_token": "x", "ttl": "864000s"]) == "604800s", "at most 7 days")
        // The Admin SDKs' createToken(appId, {ttlMillis}) puts the ttl in the custom token.
        let payload = Base64URL.encode(Data(#"{"app_id":"1:1234567890:linux:abcdef","ttl":"2700s"}"#.utf8))
        #expect(try await ttl(["customToken": "eyJhbGciOiJSUzI1NiJ9.\(payload).c2lnbmF0dXJl"]) == "2700s")
        let limited = try await emulator.admin(path, ["customToken": "x", "limitedUse": true])
        #expect(try Emulator.decode(try #require(limited.object["token"] as? String)).claims["limited_use"] as? Bool == true)

        for body: [String: Any] in [[:], ["customToken": ""], ["customToken": String(repeating: "x", count: 4097)], ["customToken": "x", "ttl": "an hour"],
            ["customToken": "x", "ttl": "-60s"], ["customToken": "x", "ttl": 3600]]
        {
            #expect(try await emulator.admin(path, body).status == 400, "\(body)")
        }
        // Only an administrator (`Authorization: Bearer owner`) exchanges custom tokens.
        let app = try await emulator.send(path + "?key=k", ["customToken": "x"])
        #expect(app.status == 403 && app.error?["status"] as? String == "PERMISSION_DENIED")
        let stranger = try await emulator.send(path, ["customToken": "x"], headers: ["Authorization": "Bearer not-the-owner"])
        #expect(stranger.status == 401 && stranger.error?["status"] as? String == "UNAUTHENTICATED")
        #expect(try await emulator.send(path, ["customToken": "x"]).status == 403, "no credential at all")
        let counted = emulator.emulator.appCheckExchanges.filter { $0.method == .exchangeCustomToken }
        #expect(counted.filter(\.issued).count == 7 && counted.count == 16)
    }

    @Test func theExchangesKeptAreBounded() throws {
        let service = EmulatorService(configuration: .init(appCheck: .init(debugTokens: [Emulator.debugToken])))
        let path = Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID):exchangeDebugToken?key=k"
        let body = try JSONSerialization.data(withJSONObject: ["debugToken": Emulator.debugToken])
        for _ in 0...EmulatorService.maximumAppCheckExchanges {
            let reply = service.handle(EmulatorRequest(method: "POST", target: path, headers: ["Content-Type": "application/json"], body: body))
            try #require(reply.status == 200)
        }
        #expect(service.appCheckExchanges.count == EmulatorService.maximumAppCheckExchanges)
    }

    /// `ttl` and the other durations of App Check: whole seconds, up to nine digits of fraction, then `s`.
    @Test func durationsAreReadAsProtocolBuffersWriteThem() {
        #expect(ProtobufDuration.seconds("3600s") == 3600)
        #expect(ProtobufDuration.seconds("0s") == 0)
        #expect(ProtobufDuration.seconds("1800.5s") == 1800)
        #expect(ProtobufDuration.seconds("1.000000001s") == 1)
        for text in ["", "s", "3600", "3600 s", "-1s", "+1s", "1.s", ".5s", "1.0000000001s", "1e3s", "٣s", "1234567890123s", "1,5s"] {
            #expect(ProtobufDuration.seconds(text) == nil, "\(text)")
        }
        #expect(ProtobufDuration.text(seconds: 3600) == "3600s")
    }
}
