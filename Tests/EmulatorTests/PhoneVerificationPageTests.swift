import Foundation
import KeyringAuth
import Synchronization
import KeyringAuthEmulator
import KeyringTestSupport
import Testing
import SecretKeychain

/// The phone verification page as a person uses it, in a real browser (``RealBrowser``: Debian's chromium, headless):
/// against the emulator's stand-in reCAPTCHA, which checks each token as Firebase does, under each enforcement a project
/// may set (v2's checkbox; Enterprise's check, no click; both); the fields the request carried; the page's Cancel button.
/// One chromium at a time.
@Suite(.serialized) struct PhoneVerificationPageTests {
    static let number = "+15555550142"

    /// An emulator whose stand-in reCAPTCHA enforces `enforcement`, an `Auth` on it with app verification on (as against
    /// Firebase), and its phone provider showing the page in `browser`.
    private static func setUp(
        _ enforcement: AuthEmulator.StandInRecaptcha.Enforcement, _ browser: RealBrowser
    ) async throws -> (EmulatorFixture, Auth, PhoneAuthProvider) {
        let fixture = try await EmulatorFixture.start(recaptcha: .init(enforcement: enforcement))
        let auth = try fixture.auth()
        auth.settings?.isAppVerificationDisabledForTesting = false
        let provider = PhoneAuthProvider.provider(auth: auth)
        provider.browser = browser.desktopBrowser
        provider.timeout = .seconds(150)
        return (fixture, auth, provider)
    }

    /// The app verification fields the emulator received with the request that sent the code.
    private static func sent(_ fixture: EmulatorFixture) -> [[String: String]] {
        fixture.emulator.receivedRequests.filter { $0.operation == "accounts:sendVerificationCode" }.map(\.appVerification)
    }

    @Test(arguments: [AuthEmulator.StandInRecaptcha.Enforcement.off, .audit, .enforce])
    func thePageVerifiesTheAppAsTheProjectAsksThenTheCodeSignsIn(_ enforcement: AuthEmulator.StandInRecaptcha.Enforcement) async throws {
        // OFF and AUDIT show v2's checkbox, which the person ticks; ENFORCE's Enterprise check needs no click.
        let steps: [RealBrowser.Step] = enforcement == .enforce ? [.waitForText("Verified")] : [.click("#recaptcha-anchor"), .waitForText("Verified")]
        let browser = try RealBrowser.make(steps, timeout: .seconds(60))
        defer { browser.remove() }
        let (fixture, auth, provider) = try await Self.setUp(enforcement, browser)
        let announced = Mutex<[URL]>([])
        let (verificationID, run) = try await browser.run {
            try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil) { url in
                announced.withLock { $0.append(url) }
            }
        }
        let page = try #require(run.final)
        #expect(page.url.hasPrefix("http://localhost:") && page.title == "Verified", "\(page)")
        #expect(page.text.contains("The code is being sent."), "\(page.text)")
        let opened = announced.withLock { $0 }
        #expect(opened.count == 1 && opened.first?.absoluteString.hasPrefix("http://localhost:") == true && opened.first?.fragment?.count == 43)

        let fields = try #require(Self.sent(fixture).last)
        #expect(fields["clientType"] == "CLIENT_TYPE_WEB" && fields["recaptchaVersion"] == "RECAPTCHA_ENTERPRISE", "\(fields)")
        switch enforcement {
        case .off:
            #expect(fields["captchaResponse"] == "NO_RECAPTCHA" && fields["recaptchaToken"]?.isEmpty == false, "\(fields)")
        case .audit, .enforce:
            #expect(fields["captchaResponse"].map { $0 != "NO_RECAPTCHA" && !$0.isEmpty } == true && fields["recaptchaToken"] == nil, "\(fields)")
        }
        #expect(Self.sent(fixture).count == 1, "one request, accepted at once")

        let code = try #require(fixture.emulator.verificationCodes.first { $0.sessionInfo == verificationID }?.code)
        let user = try await auth.signIn(with: provider.credential(withVerificationID: verificationID, verificationCode: code)).user
        #expect(user.phoneNumber == Self.number)
        print("PhoneVerificationPageTests: \(enforcement.rawValue) in chromium took \(run.seconds) s")
        await fixture.emulator.stop()
    }

    @Test func thePagesCancelEndsTheVerificationAndNoCodeIsSent() async throws {
        let browser = try RealBrowser.make([.click("#cancel"), .waitForText("cancelled")], timeout: .seconds(60))
        defer { browser.remove() }
        let (fixture, auth, provider) = try await Self.setUp(.off, browser)
        do {
            _ = try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil)
            Issue.record("a cancelled page sent a code")
        } catch let error as AuthError {
            #expect(error.code == .webContextCancelled && error.message.contains("cancelled"), "\(error)")
        }
        let page = try #require(try await browser.nextRun().final)
        #expect(page.title == "Not verified" && page.text.contains("cancelled on its page"), "\(page)")
        #expect(Self.sent(fixture).isEmpty && fixture.emulator.verificationCodes.isEmpty && auth.currentUser == nil)
        await fixture.emulator.stop()
    }
}

/// A backend that answers as a project in AUDIT whose Enterprise check refuses every token, so that the JavaScript SDK's
/// retry with the checkbox's token is what sends the code; its pages' scripts are the emulator's stand-in reCAPTCHA.
private final class RefusingEnterpriseBackend: AuthBackend, @unchecked Sendable {
    let apiKey = "AIzaAuditKey"
    let recaptchaScriptBase: String
    private let sent = Mutex<[AppVerificationFields]>([])

    init(scriptsOf fixture: EmulatorFixture) { recaptchaScriptBase = "http://\(fixture.address)/emulator/recaptcha" }

    var requests: [AppVerificationFields] { sent.withLock { $0 } }

    func recaptchaConfig(context: AuthRequestContext) async throws(AuthError) -> RecaptchaConfig {
        RecaptchaConfig(siteKey: AuthEmulator.StandInRecaptcha.enterpriseKey, phoneEnforcement: .audit)
    }

    func recaptchaSiteKey(context: AuthRequestContext) async throws(AuthError) -> String { AuthEmulator.StandInRecaptcha.siteKey }

    func sendVerificationCode(
        _ request: PhoneCodeRequest, verification: AppVerificationFields, context: AuthRequestContext
    ) async throws(AuthError) -> String {
        sent.withLock { $0.append(verification) }
        guard verification.captchaResponse == AppVerificationFields.noRecaptcha, verification.recaptchaToken != nil else {
            throw AuthError(.invalidAppCredential, "INVALID_APP_CREDENTIAL")
        }
        return "verification-id"
    }

    func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw unused }
    func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw unused }
    func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw unused }
    func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount { throw unused }
    func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? { throw unused }
    func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) { throw unused }
    func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens { throw unused }
    private var unused: AuthError { AuthError(.operationNotAllowed, "not used by this test") }
}

extension PhoneVerificationPageTests {
    @Test func inAuditARefusedEnterpriseTokenIsRetriedWithTheCheckboxsToken() async throws {
        let fixture = try await EmulatorFixture.start(recaptcha: .init(enforcement: .audit))
        let backend = RefusingEnterpriseBackend(scriptsOf: fixture)
        let options = AuthAppOptions(appName: "audit-app", apiKey: backend.apiKey, appID: "1:42:linux:audit", projectID: "demo-keyring-auth")
        let auth = Auth(configuration: AuthConfiguration(options: options, store: InMemoryStore(), backend: backend))
        let browser = try RealBrowser.make([.click("#recaptcha-anchor"), .waitForText("Verified")], timeout: .seconds(60))
        defer { browser.remove() }
        let provider = PhoneAuthProvider.provider(auth: auth)
        provider.browser = browser.desktopBrowser
        let (verificationID, _) = try await browser.run {
            try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil)
        }
        #expect(verificationID == "verification-id")
        let requests = backend.requests
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.first.map { $0.captchaResponse != AppVerificationFields.noRecaptcha && $0.recaptchaToken == nil } == true)
        #expect(requests.last.map { $0.captchaResponse == AppVerificationFields.noRecaptcha && $0.recaptchaToken?.isEmpty == false } == true)
        #expect(requests.allSatisfy { $0.clientType == "CLIENT_TYPE_WEB" && $0.recaptchaVersion == "RECAPTCHA_ENTERPRISE" })
        await fixture.emulator.stop()
    }

    @Test func aTabClosedBeforeVerifyingEndsTheWaitAndNoCodeIsSent() async throws {
        // The person looks at the page, then leaves it (as closing its tab does, the page is hidden for good).
        let browser = try RealBrowser.make([.waitForText("Verify to send the code"), .open(URL(string: "about:blank")!)], timeout: .seconds(60))
        defer { browser.remove() }
        let (fixture, _, provider) = try await Self.setUp(.off, browser)
        do {
            _ = try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil)
            Issue.record("a closed page sent a code")
        } catch let error as AuthError {
            #expect(error.code == .webContextCancelled && error.message.contains("closed"), "\(error)")
        }
        #expect(Self.sent(fixture).isEmpty)
        await fixture.emulator.stop()
    }

    @Test func reCAPTCHAThatCannotLoadIsANetworkFailureAndNoCodeIsSent() async throws {
        // Without its stand-in reCAPTCHA the emulator serves no scripts: the page's script fails to load, as offline.
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        auth.settings?.isAppVerificationDisabledForTesting = false
        let browser = try RealBrowser.make([.waitForText("could not be loaded")], timeout: .seconds(60))
        defer { browser.remove() }
        let provider = PhoneAuthProvider.provider(auth: auth)
        provider.browser = browser.desktopBrowser
        do {
            _ = try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil)
            Issue.record("a page without reCAPTCHA sent a code")
        } catch let error as AuthError {
            #expect(error.code == .webNetworkRequestFailed && error.message.contains("could not be loaded"), "\(error)")
        }
        let page = try #require(try await browser.nextRun().final)
        #expect(page.title == "Not verified" && page.text.contains("reCAPTCHA could not be loaded"), "\(page)")
        #expect(Self.sent(fixture).isEmpty && fixture.emulator.verificationCodes.isEmpty)
        await fixture.emulator.stop()
    }
}
