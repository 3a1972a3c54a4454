import Foundation
import KeyringTestSupport
import Testing

@testable import KeyringAuthEmulator

/// App Check enforced on Auth, over HTTP: each call Identity Platform protects refuses a missing, malformed, forged,
/// expired or other project's token with its exact 401 and changes nothing, and passes with a token the emulator issued;
/// refreshes, second factors, reCAPTCHA's configuration and the Admin API are not checked; without enforcement the header
/// is ignored.
@Suite struct AppCheckEnforcementTests {
    typealias Emulator = AppCheckEmulator

    /// An account an administrator made, signed in by an app with a valid token.
    struct Account {
        static let email = "ada@example.com"
        static let password = "analytical-engine"
        var uid: String
        var idToken: String
        var refreshToken: String
    }

    static func account(on emulator: Emulator) async throws -> Account {
        let created = try await emulator.admin(
            Emulator.v1 + "projects/demo-keyring-auth/accounts", ["email": Account.email, "password": Account.password])
        try #require(created.status == 200, "an administrator is not checked: \(created.object)")
        let signedIn = try await emulator.call(
            "signInWithPassword", ["email": Account.email, "password": Account.password, "returnSecureToken": true],
            appCheckToken: try await emulator.token())
        try #require(signedIn.status == 200, "\(signedIn.object)")
        return Account(
            uid: try #require(created.object["localId"] as? String), idToken: try #require(signedIn.object["idToken"] as? String),
            refreshToken: try #require(signedIn.object["refreshToken"] as? String))
    }

    /// Identity Platform's protected calls, by their `v1` names, and whether the body sent passes once the token does.
    static let protected: [(operation: String, passes: Bool)] = [
        ("createAuthUri", true), ("sendVerificationCode", true), ("signInWithCustomToken", true), ("signInWithEmailLink", false),
        ("signInWithIdp", false), ("signInWithPassword", true), ("signInWithPhoneNumber", false), ("signUp", true), ("delete", true),
        ("lookup", true), ("sendOobCode", true), ("resetPassword", false), ("update", true),
    ]

    @Test func theProtectedCallsAreIdentityPlatformsList() {
        #expect(Set(Self.protected.map { Substring($0.operation) }) == EmulatorService.appCheckProtectedOperations)
    }

    /// A body for `operation` that the account's call would send.
    static func body(_ operation: String, _ account: Account) -> [String: Any] {
        switch operation {
        case "createAuthUri": ["identifier": Account.email, "continueUri": "http://localhost/"]
        case "sendVerificationCode": ["phoneNumber": "+15555550100"]
        case "signInWithCustomToken": ["token": AuthEmulator.unsignedCustomToken(uid: "custom-user"), "returnSecureToken": true]
        case "signInWithEmailLink": ["email": Account.email, "oobCode": "no-such-code"]
        case "signInWithIdp": ["requestUri": "http://localhost/", "postBody": "id_token=not-a-token&providerId=google.com", "returnSecureToken": true]
        case "signInWithPassword": ["email": Account.email, "password": Account.password, "returnSecureToken": true]
        case "signInWithPhoneNumber": ["sessionInfo": "no-such-session", "code": "123456"]
        case "signUp": ["returnSecureToken": true]
        case "sendOobCode": ["requestType": "PASSWORD_RESET", "email": Account.email]
        case "resetPassword": ["oobCode": "no-such-code", "newPassword": "another-password"]
        case "update": ["idToken": account.idToken, "displayName": "Ada"]
        default: ["idToken": account.idToken]  // lookup, delete
        }
    }

    /// Tokens that must not pass, by what is wrong with them.
    static func invalidTokens(on emulator: Emulator, expired: String) throws -> [(String?, String)] {
        let valid = emulator.emulator.service.appCheckTokens.issue(
            appID: Emulator.appID, projectID: Emulator.project, issuedAt: Int64(Date().timeIntervalSince1970), lifetime: 3600 * 24, limitedUse: false)
        let parts = valid.split(separator: ".").map(String.init)
        let otherApp = AppCheckTokens().issue(appID: Emulator.appID, projectID: Emulator.project, issuedAt: 0, lifetime: 1 << 40, limitedUse: false)
        let tampered = [parts[0], String(otherApp.split(separator: ".")[1]), parts[2]].joined(separator: ".")
        let now = Int64(emulator.clock.now.withLock { $0 }.timeIntervalSince1970)
        return [
            (nil, "no header"), ("", "empty"), ("garbage", "not a JWT"),
            ("eyJlcnJvciI6IlVOS05PV05fRVJST1IifQ==", "Apple's placeholder for a token it could not get"),
            (expired, "expired"),
            (emulator.emulator.service.appCheckTokens.issue(
                appID: Emulator.appID, projectID: "someone-elses", issuedAt: now, lifetime: 3600, limitedUse: false), "another project's"),
            (otherApp, "another emulator's key"), (tampered, "claims changed under the signature"),
            (parts[0] + "." + parts[1] + ".", "the signature left out"),
            (#"eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0."# + parts[1] + ".", "alg none"),
            (valid + String(repeating: "A", count: 4096), "over 4 KiB"),
        ]
    }

    /// What a refused call must leave as it was: the accounts, the codes and the requests received.
    static func snapshot(_ emulator: Emulator) -> (Data, Int, Int, Int) {
        (emulator.emulator.exportAccounts(includingPasswords: true), emulator.emulator.outOfBandCodes.count,
            emulator.emulator.verificationCodes.count, emulator.emulator.receivedRequests.count)
    }

    @Test(arguments: protected)
    func aProtectedCallNeedsAValidTokenAndARefusedOneChangesNothing(_ call: (operation: String, passes: Bool)) async throws {
        let emulator = try await Emulator.enforcing(tokenLifetime: .seconds(60))
        defer { Task { await emulator.stop() } }
        let account = try await Self.account(on: emulator)
        let expired = try await emulator.token()
        emulator.clock.pass(60)
        let body = Self.body(call.operation, account)
        let before = Self.snapshot(emulator)
        for (token, what) in try Self.invalidTokens(on: emulator, expired: expired) {
            let reply = try await emulator.call(call.operation, body, appCheckToken: token)
            #expect(Emulator.isAppCheckRefusal(reply), "\(call.operation) with \(what): \(reply.status) \(reply.object)")
        }
        #expect(Self.snapshot(emulator) == before, "\(call.operation) refused changed nothing")

        let reply = try await emulator.call(call.operation, body, appCheckToken: try await emulator.token())
        #expect(reply.status != 401, "\(reply.object)")
        if call.passes {
            #expect(reply.status == 200, "\(call.operation): \(reply.object)")
        } else {
            #expect(reply.status == 400, "the body's own refusal, past App Check: \(reply.object)")
        }
    }

    /// A sign-up refused makes no account, and an update and a deletion refused leave the account as it was, as an
    /// administrator's lookup shows.
    @Test func refusedCallsLeaveTheAccountsAsTheyWere() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        let account = try await Self.account(on: emulator)
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("signUp", ["email": "grace@example.com", "password": "compiler1"])))
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("update", ["idToken": account.idToken, "displayName": "Refused"])))
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("delete", ["idToken": account.idToken])))
        let lookup = try await emulator.admin(Emulator.v1 + "projects/demo-keyring-auth/accounts:lookup", ["localId": [account.uid]])
        let users = try #require(lookup.object["users"] as? [[String: Any]])
        #expect(users.count == 1 && users[0]["displayName"] == nil)
        let grace = try await emulator.admin(Emulator.v1 + "projects/demo-keyring-auth/accounts:lookup", ["email": ["grace@example.com"]])
        #expect(grace.status == 200 && grace.object["users"] == nil)
        #expect(emulator.emulator.accounts.count == 1)
    }

    /// Older SDKs' `v3` names are the same calls, checked the same way; reCAPTCHA's parameters are not checked.
    @Test func theLegacyPathsAreCheckedAsTheCallsTheyAre() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        let legacy = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
        let token = try await emulator.token()
        for name in ["signupNewUser", "verifyPassword", "getAccountInfo", "setAccountInfo", "deleteAccount", "getOobConfirmationCode",
            "createAuthUri", "verifyCustomToken", "verifyAssertion", "emailLinkSignin", "resetPassword", "sendVerificationCode", "verifyPhoneNumber"]
        {
            #expect(Emulator.isAppCheckRefusal(try await emulator.send(legacy + name + "?key=k", ["returnSecureToken": true])), "\(name)")
        }
        let passed = try await emulator.send(legacy + "signupNewUser?key=k", ["returnSecureToken": true], headers: ["X-Firebase-AppCheck": token])
        #expect(passed.status == 200, "\(passed.object)")
        #expect(try await emulator.send(legacy + "getRecaptchaParam?key=k", method: "GET").status == 200)
    }

    /// Token refreshes, second factors, reCAPTCHA's configuration, the Admin API and the emulator's own API pass without
    /// a token, as Identity Platform checks none of them.
    @Test func refreshesSecondFactorsAndTheAdminAPIAreNotChecked() async throws {
        let emulator = try await Emulator.enforcing()
        defer { Task { await emulator.stop() } }
        let account = try await Self.account(on: emulator)
        let refreshed = try await emulator.send(
            "/securetoken.googleapis.com/v1/token?key=k", ["grant_type": "refresh_token", "refresh_token": account.refreshToken])
        #expect(refreshed.status == 200, "\(refreshed.object)")

        let v2 = "/identitytoolkit.googleapis.com/v2/"
        let secondFactors: [(String, [String: Any])] = [
            ("accounts/mfaEnrollment:start", ["idToken": account.idToken, "totpEnrollmentInfo": [String: Any]()]),
            ("accounts/mfaEnrollment:withdraw", ["idToken": account.idToken, "mfaEnrollmentId": "none"]),
            ("accounts/mfaSignIn:start", ["mfaPendingCredential": "none", "mfaEnrollmentId": "none"]),
            ("accounts/mfaSignIn:finalize", ["mfaPendingCredential": "none", "totpVerificationInfo": ["verificationCode": "123456"]]),
        ]
        for (path, body) in secondFactors {
            let reply = try await emulator.send(v2 + path + "?key=k", body)
            #expect(reply.status != 401, "\(path): \(reply.object)")
        }
        #expect(try await emulator.send(Emulator.v1 + "recaptchaParams?key=k", method: "GET").status == 200)
        #expect(try await emulator.send(v2 + "recaptchaConfig?key=k&clientType=CLIENT_TYPE_WEB", method: "GET").status == 501)

        // The Admin API: with a project in the path, and the Admin SDKs' calls without one.
        let project = Emulator.v1 + "projects/demo-keyring-auth/"
        #expect(try await emulator.admin(project + "accounts:lookup", ["localId": [account.uid]]).status == 200)
        #expect(try await emulator.admin(project + "accounts:update", ["localId": account.uid, "displayName": "Ada"]).status == 200)
        #expect(try await emulator.admin(Emulator.v1 + "accounts:lookup", ["localId": [account.uid]]).status == 200)
        let created = try await emulator.admin(Emulator.v1 + "accounts:signUp", ["email": "grace@example.com", "password": "compiler1"])
        #expect(created.status == 200, "\(created.object)")
        #expect(try await emulator.admin(Emulator.v1 + "accounts:sendOobCode", [
            "requestType": "PASSWORD_RESET", "email": "grace@example.com", "returnOobLink": true,
        ]).status == 200)
        #expect(try await emulator.admin(Emulator.v1 + "accounts:delete", ["localId": account.uid]).status == 200)
        #expect(try await emulator.send("/emulator/v1/projects/demo-keyring-auth/oobCodes", method: "GET").status == 200)
        // An app's own call is still checked.
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("lookup", ["idToken": account.idToken])))
    }

    /// Without App Check's settings (firebase-tools' way), or with them but not enforced, the header is ignored; the
    /// requests received say which app's valid token each carried.
    @Test(arguments: [nil, AuthEmulator.AppCheckSettings(debugTokens: [AppCheckEmulator.debugToken])])
    func withoutEnforcementTheHeaderIsIgnored(_ settings: AuthEmulator.AppCheckSettings?) async throws {
        let emulator = try await Emulator.start(settings)
        defer { Task { await emulator.stop() } }
        #expect(try await emulator.call("signUp").status == 200)
        #expect(try await emulator.call("signUp", appCheckToken: "garbage").status == 200)
        // A backend's custom token is exchanged either way.
        let exchanged = try await emulator.admin(
            Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID):exchangeCustomToken", ["customToken": "proof"])
        let token = try #require(exchanged.object["token"] as? String)
        #expect(try await emulator.call("signUp", appCheckToken: token).status == 200)
        #expect(emulator.emulator.receivedRequests.suffix(3).map(\.appCheckAppID) == [nil, nil, Emulator.appID])
    }

    /// A token passes until its `exp`, on the emulator's clock, then is refused; a backend's custom token passes too.
    @Test func tokensExpire() async throws {
        let emulator = try await Emulator.enforcing(tokenLifetime: .seconds(60))
        defer { Task { await emulator.stop() } }
        let token = try await emulator.token()
        emulator.clock.pass(59.5)
        #expect(try await emulator.call("signUp", appCheckToken: token).status == 200)
        emulator.clock.pass(0.5)
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("signUp", appCheckToken: token)))
        #expect(try await emulator.call("signUp", appCheckToken: try await emulator.token()).status == 200, "a new exchange")

        let custom = try await emulator.admin(
            Emulator.exchangePrefix + "demo-keyring-auth/apps/\(Emulator.appID):exchangeCustomToken", ["customToken": "proof"])
        let customToken = try #require(custom.object["token"] as? String)
        emulator.clock.pass(3599)
        #expect(try await emulator.call("signUp", appCheckToken: customToken).status == 200)
        emulator.clock.pass(1)
        #expect(Emulator.isAppCheckRefusal(try await emulator.call("signUp", appCheckToken: customToken)))
    }

    @Test func theSettingsAreCheckedAtStartAndNeverShowTheDebugTokens() async throws {
        for settings in [
            AuthEmulator.AppCheckSettings(tokenLifetime: .zero), AuthEmulator.AppCheckSettings(tokenLifetime: .seconds(8 * 24 * 3600)),
            AuthEmulator.AppCheckSettings(debugTokens: [""]),
            AuthEmulator.AppCheckSettings(debugTokens: [String(repeating: "a", count: AuthEmulator.AppCheckSettings.maximumDebugTokenBytes + 1)]),
        ] {
            let emulator = AuthEmulator(configuration: .init(port: 0, logger: EmulatorFixture.quietLogger, appCheck: settings))
            await #expect(throws: AuthEmulatorError.self) { try await emulator.start() }
        }
        let settings = AuthEmulator.AppCheckSettings(enforcesOnAuth: true, debugTokens: [Emulator.debugToken])
        #expect(!"\(settings)".contains(Emulator.debugToken) && !String(reflecting: settings).contains(Emulator.debugToken))
        #expect("\(settings)".contains("debugTokens: 1"))
    }

    /// Tokens signed with the emulator's key but with claims that are not App Check's, or that cannot be read, are
    /// refused; seeded mutations of a valid token never pass.
    @Test func onlyWellFormedSignedTokensPass() throws {
        let tokens = AppCheckTokens()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = #"{"alg":"HS256","kid":"\#(tokens.keyID)","typ":"JWT"}"#
        let good: [String: Any] = [
            "iss": "https://firebaseappcheck.googleapis.com/1", "sub": Emulator.appID, "aud": ["projects/demo-keyring-auth"],
            "iat": 1_800_000_000, "exp": 1_800_000_060,
        ]
        func token(_ changes: [String: Any?], header text: String = header) throws -> String {
            var claims = good
            for (name, value) in changes { claims[name] = value }
            return tokens.signed(header: text, payload: try JSONSerialization.data(withJSONObject: claims))
        }
        #expect(tokens.verify(try token([:]), projectID: "demo-keyring-auth", now: now)?.appID == Emulator.appID)
        let refused: [String] = [
            try token(["sub": nil]), try token(["sub": ""]), try token(["sub": "an app"]), try token(["sub": 42]),
            try token(["aud": "projects/demo-keyring-auth"]), try token(["aud": ["projects/other"]]), try token(["aud": nil]),
            try token(["exp": "1800000060"]), try token(["exp": true]), try token(["exp": 1e300]), try token(["exp": 1_800_000_000]),
            try token(["iat": nil]), try token(["iss": "https://securetoken.google.com/demo-keyring-auth"]),
            try token([:], header: #"{"alg":"none","kid":"\#(tokens.keyID)"}"#), try token([:], header: #"{"alg":"HS256","kid":"another"}"#),
            try token([:], header: "[]"), try token([:], header: "not json"),
            tokens.signed(header: header, payload: Data("[1]".utf8)),
            tokens.signed(header: header, payload: Data((String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)).utf8)),
        ]
        for (index, refusedToken) in refused.enumerated() {
            #expect(tokens.verify(refusedToken, projectID: "demo-keyring-auth", now: now) == nil, "case \(index)")
        }

        var generator = SplitMix64(seed: 66)
        let valid = Array(try token([:]).utf8)
        for _ in 0..<2000 {
            var mutated = valid
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: mutated.remove(at: index)
                default: mutated.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                }
            }
            guard mutated != valid else { continue }
            let text = String(decoding: mutated, as: UTF8.self)
            #expect(tokens.verify(text, projectID: "demo-keyring-auth", now: now) == nil, "\(text)")
        }
    }
}
