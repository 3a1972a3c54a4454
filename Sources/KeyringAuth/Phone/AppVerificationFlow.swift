import Foundation
import Logging
import SystemSupport

/// Verifies the app in the person's browser before an SMS code is sent, as Firebase's JavaScript SDK does on a web page:
///
/// 1. listens on `127.0.0.1` and `::1` for `http://localhost:PORT/` (`localhost` is among a new project's Authorized
///    domains, so reCAPTCHA accepts the page there);
/// 2. serves ``RecaptchaPage`` at `/` and opens `http://localhost:PORT/#SECRET` (a fresh 32-byte secret the browser
///    never sends; the page hands it back) through the desktop portal or `xdg-open`, announcing the address first;
/// 3. takes the tokens from the first `GET /verified` that carries the secret and this listener's `Host`; anything else
///    gets a 400 page and the wait goes on. A cancel, a closed tab, the time limit or the task's cancellation end it.
package struct AppVerificationFlow: Sendable {
    /// The tokens the page handed back.
    package struct Tokens: Hashable, Sendable {
        /// reCAPTCHA Enterprise's token, or `NO_RECAPTCHA` when its check failed in the browser.
        package var enterprise: String?
        /// reCAPTCHA v2's token.
        package var v2: String?
    }

    var page: RecaptchaPage
    var browser: DesktopBrowser = .system
    var port: UInt16 = 0
    var timeout: Duration = .seconds(300)
    var logger = Logger(label: "KeyringAuth.PhoneAuth")

    /// The longest token taken from the page.
    static let maximumTokenBytes = 6 * 1024

    /// Runs the flow.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` when the person cancelled or closed the page, the
    ///   time passed or the task was cancelled; ``AuthErrorCode/webNetworkRequestFailed`` when reCAPTCHA could not be
    ///   loaded or run in the browser; ``AuthErrorCode/webContextAlreadyPresented`` when ``port`` is in use;
    ///   ``AuthErrorCode/webInternalError`` when the listener failed.
    /// - Parameter announcing: Called with the page's address before ``browser`` opens it.
    func tokens(announcing: @Sendable (URL) -> Void) async throws(AuthError) -> Tokens {
        guard timeout > .zero else { throw AuthError(.invalidConfiguration, "The phone verification's time limit must be positive.") }
        let listener = try LoopbackRedirectListener(port: port, path: "/verified", host: .localhost)
        defer { listener.close() }
        let secret = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        let nonce = Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        let url = URL(string: "http://localhost:\(listener.port)/#\(secret)")!
        announcing(url)
        if let failure = await browser.open(url) {
            logger.notice("the browser was not opened: \(failure); the verification page must be opened by hand")
        }
        let callback: LoopbackRedirectListener.Callback
        switch await listener.nextCallback(state: secret, until: .now + timeout, serving: page.served(nonce: nonce)) {
        case .success(let received): callback = received
        case .failure(.timedOut):
            throw AuthError(
                .webContextCancelled, "Nobody verified the app on the page in the browser within \(timeout); no code was sent. Try again.")
        case .failure(.cancelled):
            throw AuthError(.webContextCancelled, "The phone verification was cancelled before the browser answered; no code was sent.")
        case .failure(.failed(let reason)):
            throw AuthError(.webInternalError, "The phone verification stopped listening for the browser: \(reason).")
        }
        listener.close()
        do throws(AuthError) {
            let tokens = try Self.tokens(in: callback)
            LoopbackRedirectListener.reply(
                callback.connection, status: "200 OK",
                page: RedirectPage.page(title: "Verified", text: "The code is being sent. You can close this tab and return to the app."))
            return tokens
        } catch {
            LoopbackRedirectListener.reply(callback.connection, status: "400 Bad Request", page: RedirectPage.failed(error.message, title: "Not verified"))
            throw error
        }
    }

    /// What the page answered: its tokens, or why it has none.
    static func tokens(in callback: LoopbackRedirectListener.Callback) throws(AuthError) -> Tokens {
        switch callback.value("outcome") {
        case "verified":
            let tokens = Tokens(enterprise: callback.value("captchaResponse"), v2: callback.value("recaptchaToken"))
            for token in [tokens.enterprise, tokens.v2].compactMap({ $0 }) {
                guard !token.isEmpty, token.utf8.count <= maximumTokenBytes,
                    token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
                else {
                    throw AuthError(.captchaCheckFailed, "The verification page answered a malformed reCAPTCHA token; no code was sent. Try again.")
                }
            }
            guard tokens.enterprise != nil || tokens.v2 != nil else {
                throw AuthError(.captchaCheckFailed, "The verification page answered without a reCAPTCHA token; no code was sent. Try again.")
            }
            return tokens
        case "cancelled":
            throw AuthError(.webContextCancelled, "The phone verification was cancelled on its page; no code was sent.")
        case "closed":
            throw AuthError(.webContextCancelled, "The phone verification's page was closed before it was finished; no code was sent.")
        case "error":
            let reason = DesktopOAuthFlow.printable(callback.value("message") ?? "", limit: 200)
            throw AuthError(.webNetworkRequestFailed, "The verification page failed: \(reason) No code was sent.")
        default:
            throw AuthError(.webInternalError, "The verification page answered something this flow does not know; no code was sent.")
        }
    }
}
