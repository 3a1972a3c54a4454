import Foundation
import KeyringAuth
import KeyringTestSupport
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The desktop sign-ins with a real browser (``RealBrowser``: Debian's chromium, headless) where the other tests have
/// a stand-in without JavaScript: the emulator's provider page walked as a person walks it, and the pages the app's
/// loopback listener leaves the browser on, read as the person reads them. One chromium at a time (seconds each).
@Suite(.serialized) struct ChromiumSignInTests {
    private static let landingText = "You can close this tab and return to the app."

    /// The parameter `name` of `url`'s query.
    private static func parameter(_ name: String, of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    /// `microsoft.com` through Firebase's `OAuthProvider`: in chromium the person makes a new account with the
    /// emulator page's form, then, signing in again, chooses it from the page's list; each time signed in, the
    /// browser left on the app's `localhost` page saying so.
    @Test func theEmulatorsPageMakesANewAccountThenChoosesItAndTheAppsPageSaysFinished() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let browser = try RealBrowser.make([.emulatorSignIn(email: "ada@example.com", displayName: "Ada Lovelace")])
        defer { browser.remove() }
        let microsoft = OAuthProvider(providerID: "microsoft.com", auth: auth)
        microsoft.browser = browser.desktopBrowser
        microsoft.timeout = .seconds(150)

        let (first, made) = try await browser.run { try await auth.signIn(with: microsoft, uiDelegate: nil) }
        #expect(made.choices == ["new ada@example.com"] && made.sandbox)
        #expect(first.user.email == "ada@example.com" && first.user.displayName == "Ada Lovelace")
        #expect(first.additionalUserInfo?.isNewUser == true && first.user.providerData.map(\.providerID) == ["microsoft.com"])
        let page = try #require(made.final)
        #expect(page.url.hasPrefix("http://localhost:") && page.title == "Sign-in finished", "\(page)")
        #expect(page.text == "Sign-in finished\n\n\(Self.landingText)", "\(page.text)")
        try auth.signOut()

        let (again, chose) = try await browser.run { try await auth.signIn(with: microsoft, uiDelegate: nil) }
        #expect(chose.choices == ["listed ada@example.com"])
        #expect(again.user.uid == first.user.uid && again.additionalUserInfo?.isNewUser == false)
        #expect(chose.final?.title == "Sign-in finished" && chose.final?.text.contains(Self.landingText) == true, "\(String(describing: chose.final))")
        #expect(auth.currentUser?.uid == first.user.uid)
        print("ChromiumSignInTests: the emulator's page in chromium took \(made.seconds) s, then \(chose.seconds) s")
        await fixture.emulator.stop()
    }

    /// `DesktopOAuthFlow`'s listener in chromium: a page with another `state` gets the 400 page and the sign-in goes
    /// on; the provider's redirect with `error=access_denied` gets the failure page, its description shown as text (not
    /// markup), and the sign-in is cancelled.
    @Test func aWrongStateIsRefusedAndTheProvidersRefusalEndsTheSignInOnAFailurePage() async throws {
        let provider = try FakeOAuthProvider(user: DesktopOAuthFlowTests.user)
        defer { provider.stop() }
        let browser = try RealBrowser.make([])
        defer { browser.remove() }
        var flow = DesktopOAuthFlow(provider: provider.provider(), clientID: provider.clientID, clientSecret: provider.clientSecret)
        flow.timeout = .seconds(150)
        flow.browser = browser.desktopBrowser { url in
            let redirect = Self.parameter("redirect_uri", of: url)!
            var forged = URLComponents(string: redirect)!
            forged.queryItems = [URLQueryItem(name: "code", value: "forged"), URLQueryItem(name: "state", value: "someone-elses")]
            // The provider's consent page, declined: back to the app with error=access_denied and the sign-in's state.
            var declined = URLComponents(string: redirect)!
            declined.queryItems = [
                URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "error_description", value: "The user said <no>"),
                URLQueryItem(name: "state", value: Self.parameter("state", of: url)),
            ]
            return (forged.url!, [.capture, .open(declined.url!)])
        }
        let error: AuthError?
        do throws(AuthError) {
            _ = try await flow.getCredential()
            error = nil
        } catch let thrown {
            error = thrown
        }
        #expect(error?.code == .webContextCancelled && error?.message.contains("declined") == true, "\(String(describing: error))")
        let run = try await browser.nextRun()
        let refused = try #require(run.pages.first)
        #expect(refused.title == "Not answered" && refused.url.hasPrefix("http://127.0.0.1:"), "\(refused)")
        #expect(refused.text.hasPrefix("Not answered\n\n") && refused.text.contains("not the answer of the sign-in waiting here"), "\(refused.text)")
        let failed = try #require(run.final)
        #expect(failed.title == "Sign-in failed", "\(failed)")
        #expect(failed.text.contains("The user said <no>") && failed.text.hasSuffix(Self.landingText), "\(failed.text)")
        #expect(provider.tokenRequests == 0)
        print("ChromiumSignInTests: the listener's pages in chromium took \(run.seconds) s")
    }

    /// The driver's generic steps on a loopback page whose widget JavaScript renders late, in an iframe (as reCAPTCHA's
    /// checkbox): the button clicked once it is there, and the page's text waited for.
    @Test func aButtonInsideAWidgetThatJavaScriptRendersIsClicked() async throws {
        let page = """
            <!DOCTYPE html><html><head><title>Widget</title></head><body><p id="status">Not verified yet.</p><div id="widget"></div>
            <script>
            window.verified = () => { document.getElementById("status").textContent = "Verified: the box was ticked."; };
            setTimeout(() => {
              const frame = document.createElement("iframe");
              frame.srcdoc = '<button id="recaptcha-anchor" onclick="parent.verified()">I am not a robot</button>';
              document.getElementById("widget").appendChild(frame);
            }, 500);
            </script></body></html>
            """
        let (listener, port) = try RawTCP.silentListener()
        defer { shutdown(listener, Int32(SHUT_RDWR)) }
        try OwnThread.detach(name: "widget-page") {
            FakeOAuthProvider.serve(listener, concurrently: true) { _, _ in
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n\(page)"
            }
        }
        let browser = try RealBrowser.make([.click("#recaptcha-anchor", frame: "#widget iframe"), .waitForText("Verified")])
        defer { browser.remove() }
        #expect(await browser.desktopBrowser.open(URL(string: "http://127.0.0.1:\(port)/")!) == nil)
        let run = try await browser.nextRun()
        #expect(run.final?.text == "Verified: the box was ticked.", "\(String(describing: run.final))")
        print("ChromiumSignInTests: the widget's page in chromium took \(run.seconds) s")
    }
}
