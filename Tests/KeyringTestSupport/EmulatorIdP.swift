import Foundation

/// A person at the emulator's identity-provider page (where `accounts:createAuthUri` with a provider ID sends the
/// browser), with a browser without JavaScript (``FakeOAuthProvider/Browser``): they pick their listed account, or make
/// one with the page's form, or decline; the browser then follows the page's redirect back to the app.
package enum EmulatorIdP {
    /// What the person does on the page.
    package enum Choice: Sendable {
        /// Signs in as the account of this email address: the listed one, else a new one with `displayName`.
        case account(email: String, displayName: String?)
        case decline
    }

    /// Completes the page at `authURL` with `choice` and follows the redirect back, reaching a `localhost` app at
    /// `address` (`127.0.0.1` by default, `::1` for the other loopback address); returns the page the app left the
    /// browser on.
    package static func complete(_ authURL: URL, _ choice: Choice, via address: String? = nil) throws -> FakeOAuthProvider.Browser.Page {
        let back = try redirect(for: authURL, choice)
        return try FakeOAuthProvider.Browser.get(back, asABrowser: true, via: address)
    }

    /// Where the page sends the browser after `choice`: the app's address with the provider's answer.
    package static func redirect(for authURL: URL, _ choice: Choice) throws -> URL {
        let page = try FakeOAuthProvider.Browser.get(authURL)
        guard page.status == 200 else { throw RawTCP.Failure(description: "the emulator's page answered \(page.status): \(page.body)") }
        let answer: URL
        switch choice {
        case .decline:
            answer = try link(in: page.body, class: "decline", relativeTo: authURL)
        case .account(let email, let displayName):
            if let listed = try? link(in: page.body, class: "account", containing: "&lt;\(email)&gt;", relativeTo: authURL) {
                answer = listed
            } else {
                // The page's form, as a browser submits a GET form: its action with the hidden state and the fields.
                let state = try value(after: "name=\"state\" value=\"", in: page.body)
                var components = URLComponents(url: authURL, resolvingAgainstBaseURL: false)!
                components.path = try value(after: "<form class=\"new-account\" method=\"get\" action=\"", in: page.body)
                components.queryItems = [URLQueryItem(name: "state", value: state), URLQueryItem(name: "email", value: email)]
                    + (displayName.map { [URLQueryItem(name: "displayName", value: $0)] } ?? [])
                answer = components.url!
            }
        }
        let chosen = try FakeOAuthProvider.Browser.get(answer)
        guard chosen.status == 302, let location = chosen.headers["location"], let url = URL(string: location) else {
            throw RawTCP.Failure(description: "the emulator's page did not send the browser back (\(chosen.status)): \(chosen.body)")
        }
        return url
    }

    /// The `href` of the first link of `class` (whose text contains `text`, when given), resolved against `base`.
    private static func link(in html: String, class name: String, containing text: String? = nil, relativeTo base: URL) throws -> URL {
        for piece in html.components(separatedBy: "<a class=\"\(name)\" href=\"").dropFirst() {
            guard let end = piece.firstIndex(of: "\""), let close = piece.range(of: "</a>") else { continue }
            if let text, !piece[..<close.lowerBound].contains(text) { continue }
            let href = unescaped(String(piece[..<end]))
            guard let url = URL(string: href, relativeTo: base)?.absoluteURL else { break }
            return url
        }
        throw RawTCP.Failure(description: "no \(name) link\(text.map { " with \($0)" } ?? "") on the emulator's page")
    }

    private static func value(after marker: String, in html: String) throws -> String {
        guard let start = html.range(of: marker), let end = html[start.upperBound...].firstIndex(of: "\"") else {
            throw RawTCP.Failure(description: "no \(marker) on the emulator's page")
        }
        return unescaped(String(html[start.upperBound..<end]))
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
