import Foundation
import KeyringAuth
import Synchronization
import KeyringAuthEmulator
import KeyringTestSupport
import Testing

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
