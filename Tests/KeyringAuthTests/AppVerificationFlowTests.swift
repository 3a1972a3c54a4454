import Foundation
import KeyringTestSupport
import Synchronization
import Testing

@testable import KeyringAuth

/// The verification page's listener, as any local process can reach it: the page itself is served to anyone (it holds
/// no secret), and only a request with the flow's secret, sent to its `Host`, ends the wait; anything else gets a 400
/// page and the wait goes on. The requests are written by hand, as another process would write them.
@Suite struct AppVerificationFlowTests {
    /// `GET target` with `host` as `Host`, and the answer's status line and headers and body.
    private static func get(_ target: String, port: UInt16, host: String) throws -> String {
        let request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
        return String(decoding: try RawTCP.exchange(host: "127.0.0.1", port: Int(port), bytes: Array(request.utf8)), as: UTF8.self)
    }

    @Test func onlyTheFlowsSecretAtItsHostEndsTheWaitAndThePageHoldsNoSecret() async throws {
        let answers = Mutex<[String]>([])
        let allSent = DispatchSemaphore(value: 0)
        let browser = DesktopBrowser.custom { url in
            // Another process, then the page's own answer, on a thread of their own once the flow listens.
            let port = UInt16(url.port ?? 0)
            let secret = url.fragment ?? ""
            Thread.detachNewThread {
                let host = "localhost:\(port)"
                let tries = [
                    ("/", host), ("/verified?state=not-the-secret&outcome=verified&recaptchaToken=forged", host),
                    ("/verified?state=\(secret)&outcome=verified&recaptchaToken=forged", "rebound.example:\(port)"),
                    ("/verified?state=\(secret)&outcome=verified&recaptchaToken=the-token", host),
                ]
                for (target, sentHost) in tries {
                    let answer = (try? Self.get(target, port: port, host: sentHost)) ?? "no answer"
                    answers.withLock { $0.append(answer) }
                }
                allSent.signal()
            }
            return nil
        }
        let page = RecaptchaPage(
            scriptBase: "https://www.google.com/recaptcha", enterprise: nil, v2SiteKey: "site-key", alwaysV2: false, phoneNumber: "+15555550100",
            languageCode: nil)
        var flow = AppVerificationFlow(page: page)
        flow.browser = browser
        flow.timeout = .seconds(60)
        let tokens = try await flow.tokens(announcing: { _ in })
        #expect(tokens == AppVerificationFlow.Tokens(enterprise: nil, v2: "the-token"))
        // The last answer was sent before the flow returned; the other process reads it on its own thread.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                allSent.wait()
                done.resume()
            }
        }
        let seen = answers.withLock { $0 }
        #expect(seen.count == 4)
        let served = try #require(seen.first)
        #expect(served.hasPrefix("HTTP/1.1 200") && served.contains("Verify to send the code") && served.contains("+15555550100"))
        #expect(served.contains("Content-Security-Policy: default-src 'none'; script-src 'nonce-"))
        #expect(seen.dropFirst().prefix(2).allSatisfy { $0.hasPrefix("HTTP/1.1 400") }, "\(seen)")
        #expect(seen.last?.hasPrefix("HTTP/1.1 200") == true && seen.last?.contains("Verified") == true)
    }

    @Test func aTokenThatIsNoTokenIsRefusedAndNothingIsSent() throws {
        func callback(_ parameters: [String: String?]) -> LoopbackRedirectListener.Callback {
            LoopbackRedirectListener.Callback(parameters: parameters, target: "/verified", connection: -1)
        }
        for parameters: [String: String?] in [
            ["outcome": "verified"], ["outcome": "verified", "recaptchaToken": "with space"],
            ["outcome": "verified", "captchaResponse": String(repeating: "a", count: 7000)],
        ] {
            #expect(throws: AuthError.self) { try AppVerificationFlow.tokens(in: callback(parameters)) }
        }
        #expect((try? AppVerificationFlow.tokens(in: callback(["outcome": "cancelled"]))) == nil)
        #expect(throws: AuthError.self) { try AppVerificationFlow.tokens(in: callback(["outcome": "closed"])) }
    }
}
