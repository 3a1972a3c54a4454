import CommandLineSupport
import Foundation
import KeyringTestSupport
import Synchronization
import Testing

@testable import KeyringAuthEmulator

/// The stand-in reCAPTCHA (a test option): `v2/recaptchaConfig`, the scripts, the token endpoint from any origin, and
/// each enforcement's checks of a phone request's tokens, every error code, and tokens used once.
@Suite struct StandInRecaptchaTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1/"
    static let v2 = "/identitytoolkit.googleapis.com/v2/"
    static let send = v1 + "accounts:sendVerificationCode?key=k"

    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    }

    /// An emulator's service without a server, on a clock the test moves.
    struct Service {
        let service: EmulatorService
        let clock: Clock

        init(_ enforcement: AuthEmulator.StandInRecaptcha.Enforcement?) {
            let clock = Clock()
            self.clock = clock
            service = EmulatorService(
                configuration: .init(recaptcha: enforcement.map { AuthEmulator.StandInRecaptcha(enforcement: $0) }),
                clock: { clock.now.withLock { $0 } })
        }

        func pass(_ seconds: TimeInterval) { clock.now.withLock { $0 += seconds } }

        func call(_ method: String, _ target: String, _ body: [String: Any]? = nil, headers: [String: String] = [:]) -> EmulatorResponse {
            var all = headers
            if body != nil { all["Content-Type"] = "application/json" }
            let data = body.map { try! JSONSerialization.data(withJSONObject: $0) } ?? Data()
            return service.handle(EmulatorRequest(method: method, target: target, headers: all, body: data))
        }

        func json(_ method: String, _ target: String, _ body: [String: Any]? = nil) -> (status: Int, reply: [String: Any]) {
            let response = call(method, target, body)
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }

        /// A token from the mint endpoint, as the scripts ask for it.
        func mint(_ version: String, action: String? = nil) throws -> String {
            let siteKey = version == "v2" ? AuthEmulator.StandInRecaptcha.siteKey : AuthEmulator.StandInRecaptcha.enterpriseKey
            var body: [String: Any] = ["version": version, "siteKey": siteKey]
            body["action"] = action
            let (status, reply) = json("POST", "/emulator/recaptcha/token", body)
            #expect(status == 200, "\(reply)")
            return try #require(reply["token"] as? String)
        }

        /// The error code of a `sendVerificationCode` with `fields` (and a number), `nil` when it passed.
        func send(_ fields: [String: Any]) -> String? {
            let (status, reply) = json("POST", StandInRecaptchaTests.send, fields.merging(["phoneNumber": "+15555550100"]) { a, _ in a })
            if status == 200 {
                #expect(reply["sessionInfo"] is String)
                return nil
            }
            return (reply["error"] as? [String: Any])?["message"] as? String
        }
    }

    /// Enterprise fields as the JavaScript SDK sends them in AUDIT and ENFORCE.
    static func enterprise(_ token: String?) -> [String: Any] {
        var fields: [String: Any] = ["clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"]
        fields["captchaResponse"] = token
        return fields
    }

    @Test func withoutTheOptionNothingIsAskedForAndTheStandInIsAbsent() throws {
        let emulator = Service(nil)
        let config = emulator.json("GET", Self.v2 + "recaptchaConfig?key=k&clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE")
        #expect(config.status == 501, "as firebase-tools: \(config.reply)")
        #expect(emulator.call("GET", "/emulator/recaptcha/api.js").status == 404)
        #expect(emulator.call("POST", "/emulator/recaptcha/token", ["version": "v2"]).status == 404)
        let params = emulator.json("GET", Self.v1 + "recaptchaParams?key=k").reply
        #expect(params["recaptchaSiteKey"] as? String == "Fake-key__Do-not-send-this-to-Recaptcha_")
        #expect(emulator.send(["recaptchaToken": "ignored"]) == nil)
        #expect(emulator.send([:]) == nil)
    }

    @Test(arguments: AuthEmulator.StandInRecaptcha.Enforcement.allCases)
    func theConfigurationNamesTheEnforcementAndTheKeys(_ enforcement: AuthEmulator.StandInRecaptcha.Enforcement) {
        let emulator = Service(enforcement)
        let (status, config) = emulator.json("GET", Self.v2 + "recaptchaConfig?key=k&clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE")
        #expect(status == 200)
        #expect(config["recaptchaKey"] as? String == "projects/demo-keyring-auth/keys/\(AuthEmulator.StandInRecaptcha.enterpriseKey)")
        let states = config["recaptchaEnforcementState"] as? [[String: String]]
        #expect(states == [
            ["provider": "PHONE_PROVIDER", "enforcementState": enforcement.rawValue],
            ["provider": "EMAIL_PASSWORD_PROVIDER", "enforcementState": "OFF"],
        ])
        #expect(config["useSmsBotScore"] as? Bool == false && config["useSmsTollFraudProtection"] as? Bool == false)
        let params = emulator.json("GET", Self.v1 + "recaptchaParams?key=k").reply
        #expect(params["recaptchaSiteKey"] as? String == AuthEmulator.StandInRecaptcha.siteKey && params["recaptchaStoken"] is String)
        #expect(emulator.json("GET", Self.v2 + "recaptchaConfig").status == 403, "an API key is needed")
    }

    @Test func theScriptsAreServedAndTokensAreMintedForAnyOrigin() throws {
        let emulator = Service(.enforce)
        for (name, api) in [("api.js", "grecaptcha.render"), ("enterprise.js", "grecaptcha.enterprise")] {
            let script = emulator.call("GET", "/emulator/recaptcha/\(name)?render=explicit")
            #expect(script.status == 200 && script.contentType.hasPrefix("text/javascript"))
            #expect(String(decoding: script.body, as: UTF8.self).contains(api))
            #expect(String(decoding: script.body, as: UTF8.self).contains("document.currentScript.src"))
        }
        let preflight = emulator.call("OPTIONS", "/emulator/recaptcha/token", headers: ["Origin": "http://localhost:8123"])
        #expect(preflight.status == 204)
        let allowed = Dictionary(preflight.headers.map { ($0.name, $0.value) }) { a, _ in a }
        #expect(allowed["Access-Control-Allow-Origin"] == "*" && allowed["Access-Control-Allow-Headers"] == "Content-Type")
        #expect(allowed["Access-Control-Allow-Methods"] == "POST")

        let minted = emulator.call("POST", "/emulator/recaptcha/token", ["version": "v2", "siteKey": AuthEmulator.StandInRecaptcha.siteKey])
        #expect(minted.status == 200 && minted.headers.contains { $0.name == "Access-Control-Allow-Origin" && $0.value == "*" })
        // A refusal can be read by the page too.
        let unknownKey = emulator.call("POST", "/emulator/recaptcha/token", ["version": "enterprise", "siteKey": "someone-elses"])
        #expect(unknownKey.status == 400 && unknownKey.headers.contains { $0.name == "Access-Control-Allow-Origin" && $0.value == "*" })
        #expect(emulator.call("POST", "/emulator/recaptcha/token", ["version": "v3", "siteKey": "x"]).status == 400)
        #expect(emulator.call("POST", "/emulator/recaptcha/token", ["version": "v2", "siteKey": AuthEmulator.StandInRecaptcha.enterpriseKey]).status == 400)
        #expect(emulator.call("GET", "/emulator/recaptcha/token").status == 405)
        #expect(emulator.call("GET", "/emulator/recaptcha/other.js").status == 404)
        // No other path of the emulator answers another origin.
        #expect(!emulator.call("POST", Self.send, ["phoneNumber": "+15555550100"]).headers.contains { $0.name.hasPrefix("Access-Control") })
    }

    @Test func enforceNeedsAnEnterpriseTokenForTheActionWithTheClientTypeAndVersion() throws {
        let emulator = Service(.enforce)
        let token = try emulator.mint("enterprise", action: "sendVerificationCode")
        #expect(emulator.send(["captchaResponse": token, "recaptchaVersion": "RECAPTCHA_ENTERPRISE"]) == "MISSING_CLIENT_TYPE")
        #expect(emulator.send(["captchaResponse": token, "clientType": "CLIENT_TYPE_IOS", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"]) == "MISSING_CLIENT_TYPE")
        #expect(emulator.send(["captchaResponse": token, "clientType": "CLIENT_TYPE_WEB"]) == "MISSING_RECAPTCHA_VERSION")
        #expect(emulator.send(["captchaResponse": token, "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_V2"]) == "INVALID_RECAPTCHA_VERSION")
        #expect(emulator.send(Self.enterprise(nil)) == "MISSING_RECAPTCHA_TOKEN")
        #expect(emulator.send(Self.enterprise("")) == "MISSING_RECAPTCHA_TOKEN")
        #expect(emulator.send(Self.enterprise("made-up")) == "INVALID_RECAPTCHA_TOKEN")
        #expect(emulator.send(Self.enterprise("NO_RECAPTCHA")) == "INVALID_RECAPTCHA_TOKEN")
        #expect(emulator.send(Self.enterprise(try emulator.mint("v2"))) == "INVALID_RECAPTCHA_TOKEN", "a v2 token is not an Enterprise one")
        #expect(emulator.send(Self.enterprise(try emulator.mint("enterprise", action: "mfaSmsSignIn"))) == "INVALID_RECAPTCHA_ACTION")
        #expect(emulator.send(Self.enterprise(try emulator.mint("enterprise"))) == "INVALID_RECAPTCHA_ACTION", "no action")
        // A v2 token alone is not enough.
        #expect(emulator.send(Self.enterprise(nil).merging(["recaptchaToken": try emulator.mint("v2")]) { a, _ in a }) == "MISSING_RECAPTCHA_TOKEN")

        #expect(emulator.send(Self.enterprise(token)) == nil, "the rejected requests before used nothing")
        #expect(emulator.send(Self.enterprise(token)) == "INVALID_RECAPTCHA_TOKEN", "a token is used once")
    }

    @Test func auditTakesAnEnterpriseTokenOrAfterNoRecaptchaAV2Token() throws {
        let emulator = Service(.audit)
        #expect(emulator.send(Self.enterprise(try emulator.mint("enterprise", action: "sendVerificationCode"))) == nil)
        // What makes the JavaScript SDK retry with NO_RECAPTCHA and a v2 token.
        #expect(emulator.send(Self.enterprise(nil)) == "INVALID_APP_CREDENTIAL")
        #expect(emulator.send(Self.enterprise("made-up")) == "INVALID_APP_CREDENTIAL")
        #expect(emulator.send(Self.enterprise(try emulator.mint("enterprise", action: "mfaSmsEnrollment"))) == "INVALID_APP_CREDENTIAL")
        #expect(emulator.send(Self.enterprise("NO_RECAPTCHA")) == "MISSING_APP_CREDENTIAL")
        var retry = Self.enterprise("NO_RECAPTCHA")
        retry["recaptchaToken"] = "made-up"
        #expect(emulator.send(retry) == "INVALID_APP_CREDENTIAL")
        retry["recaptchaToken"] = try emulator.mint("enterprise", action: "sendVerificationCode")
        #expect(emulator.send(retry) == "INVALID_APP_CREDENTIAL", "an Enterprise token is not a v2 one")
        retry["recaptchaToken"] = try emulator.mint("v2")
        #expect(emulator.send(retry) == nil)
        #expect(emulator.send(retry) == "INVALID_APP_CREDENTIAL", "a token is used once")
    }

    @Test func offNeedsAV2TokenAndIgnoresNoRecaptcha() throws {
        let emulator = Service(.off)
        #expect(emulator.send([:]) == "MISSING_APP_CREDENTIAL")
        #expect(emulator.send(Self.enterprise("NO_RECAPTCHA")) == "MISSING_APP_CREDENTIAL")
        #expect(emulator.send(["recaptchaToken": "ignored"]) == "INVALID_APP_CREDENTIAL")
        #expect(emulator.send(Self.enterprise(try emulator.mint("enterprise", action: "sendVerificationCode"))) == "MISSING_APP_CREDENTIAL")
        let token = try emulator.mint("v2")
        // As the JavaScript SDK sends it when the phone provider's enforcement is OFF.
        #expect(emulator.send(Self.enterprise("NO_RECAPTCHA").merging(["recaptchaToken": token]) { a, _ in a }) == nil)
        #expect(emulator.send(["recaptchaToken": token]) == "INVALID_APP_CREDENTIAL", "a token is used once")
    }

    @Test func aTokenLastsTwoMinutes() throws {
        let emulator = Service(.off)
        let early = try emulator.mint("v2")
        let late = try emulator.mint("v2")
        emulator.pass(119)
        #expect(emulator.send(["recaptchaToken": early]) == nil)
        emulator.pass(1)
        #expect(emulator.send(["recaptchaToken": late]) == "INVALID_APP_CREDENTIAL")
    }

    @Test func theTokensKeptAreBounded() throws {
        let emulator = Service(.off)
        let first = try emulator.mint("v2")
        for _ in 0..<EmulatorService.maximumRecaptchaTokens { _ = try emulator.mint("v2") }
        #expect(emulator.service.state.withLock { $0.recaptchaTokens.count } == EmulatorService.maximumRecaptchaTokens)
        #expect(emulator.send(["recaptchaToken": first]) == "INVALID_APP_CREDENTIAL", "the oldest went first")
    }

    /// The second factors' start operations check their `phoneEnrollmentInfo` / `phoneSignInInfo` for their own action.
    @Test func secondFactorsAreCheckedForTheirActions() throws {
        let emulator = Service(.enforce)
        let signedUp = emulator.json("POST", Self.v1 + "accounts:signUp?key=k", ["email": "ada@example.com", "password": "analytical"]).reply
        let uid = try #require(signedUp["localId"] as? String)
        let service = emulator.service
        #expect(service.modifyAccount(uid) { account, _ in account.emailVerified = true })
        let idToken = try #require(signedUp["idToken"] as? String)
        func start(_ token: String?) -> String? {
            let info = Self.enterprise(token).merging(["phoneNumber": "+15555550111"]) { a, _ in a }
            let (status, reply) = emulator.json("POST", Self.v2 + "accounts/mfaEnrollment:start?key=k", ["idToken": idToken, "phoneEnrollmentInfo": info])
            return status == 200 ? nil : (reply["error"] as? [String: Any])?["message"] as? String
        }
        #expect(start(nil) == "MISSING_RECAPTCHA_TOKEN")
        #expect(start(try emulator.mint("enterprise", action: "sendVerificationCode")) == "INVALID_RECAPTCHA_ACTION")
        #expect(start(try emulator.mint("enterprise", action: "mfaSmsEnrollment")) == nil)
        let code = try #require(service.verificationCodes.last)
        let finalized = emulator.json("POST", Self.v2 + "accounts/mfaEnrollment:finalize?key=k", [
            "idToken": idToken, "phoneVerificationInfo": ["sessionInfo": code.sessionInfo, "code": code.code],
        ])
        #expect(finalized.status == 200, "\(finalized.reply)")

        let pending = emulator.json("POST", Self.v1 + "accounts:signInWithPassword?key=k", ["email": "ada@example.com", "password": "analytical"]).reply
        let credential = try #require(pending["mfaPendingCredential"] as? String)
        let enrollment = try #require((pending["mfaInfo"] as? [[String: Any]])?.first?["mfaEnrollmentId"] as? String)
        func signIn(_ info: [String: Any]?) -> String? {
            var body: [String: Any] = ["mfaPendingCredential": credential, "mfaEnrollmentId": enrollment]
            body["phoneSignInInfo"] = info
            let (status, reply) = emulator.json("POST", Self.v2 + "accounts/mfaSignIn:start?key=k", body)
            return status == 200 ? nil : (reply["error"] as? [String: Any])?["message"] as? String
        }
        #expect(signIn(nil) == "MISSING_CLIENT_TYPE")
        #expect(signIn(Self.enterprise(try emulator.mint("enterprise", action: "mfaSmsEnrollment"))) == "INVALID_RECAPTCHA_ACTION")
        #expect(signIn(Self.enterprise(try emulator.mint("enterprise", action: "mfaSmsSignIn"))) == nil)
    }

    /// `keyring-auth emulator --recaptcha`: an enforcement, in any case; anything else is refused before the emulator runs.
    @Test func theOptionTakesAnEnforcement() throws {
        #expect(try EmulatorOptions.parse(["--recaptcha", "audit"]).recaptcha == "audit")
        #expect(try EmulatorOptions.parse([]).recaptcha == nil)
        #expect(throws: (any Error).self) { try EmulatorOptions.parse(["--recaptcha", "sometimes"]) }
    }

    /// The scripts in Debian's chromium, headless, through chromedriver (`Tests/EmulatorBrowser/stand_in_recaptcha.py`):
    /// a page of another origin renders the v2 widget, its button is clicked, Enterprise's `execute` runs, and each token
    /// passes `sendVerificationCode` once.
    @Test func theScriptsWorkInChromium() async throws {
        let script = AdminSDK.root.appendingPathComponent("Tests/EmulatorBrowser/stand_in_recaptcha.py").path
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] { environment[name] = nil }
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "Debian's chromium and chromium-driver are needed (dbus/install-deps installs them)")
        let result = try await Subprocess.run(
            "/usr/bin/python3", [script, try Harness.product("keyring-auth-emulator")], environment: environment, limit: .seconds(180))
        #expect(result.status == 0 && result.output == "ok\n", "\(result.output)\(result.standardError)")
    }

    @Test func theReceivedRequestsKeepTheAppVerificationSent() throws {
        let emulator = Service(.audit)
        let token = try emulator.mint("v2")
        _ = emulator.send(Self.enterprise("NO_RECAPTCHA").merging(["recaptchaToken": token]) { a, _ in a })
        let received = try #require(emulator.service.receivedRequests.last)
        #expect(received.operation == "accounts:sendVerificationCode")
        #expect(received.appVerification == [
            "captchaResponse": "NO_RECAPTCHA", "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
            "recaptchaToken": token,
        ])
        _ = emulator.json("POST", Self.v1 + "accounts:signUp?key=k", [:])
        #expect(emulator.service.receivedRequests.last?.appVerification == [:])
    }
}
