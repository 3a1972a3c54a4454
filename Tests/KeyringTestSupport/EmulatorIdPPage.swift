import Foundation

/// A person at the bundled emulator's identity provider page, where `accounts:createAuthUri`'s `authUri` leads, in
/// a browser without JavaScript: opens the page, follows an account's link, submits the new-account form or follows
/// "Decline", and stops at the page's redirect back to the app (its `Location`) without connecting to it.
package enum EmulatorIdPPage {
    package enum Choice: Sendable {
        /// The first account the page lists.
        case firstAccount
        /// The listed account whose link reads with `text` (its display name or address).
        case account(containing: String)
        /// A new account of the provider, made with the page's form.
        case newAccount(email: String, displayName: String? = nil)
        /// The listed account of `email`, else a new one made with the form: a person signing in as themselves.
        case signIn(email: String, displayName: String? = nil)
        case decline
    }

    /// Completes the page at `authUri` with `choice` and follows the redirect back to the app, reaching a `localhost`
    /// app at `address` (`127.0.0.1` unless given, `::1` for the other loopback address), as a browser that keeps its
    /// side of the connection open; returns the page the app left the browser on.
    package static func complete(_ authUri: URL, _ choice: Choice, via address: String? = nil) throws -> FakeOAuthProvider.Browser.Page {
        try FakeOAuthProvider.Browser.get(try answer(authUri, choice), asABrowser: true, via: address)
    }

    /// A link of the page: its text and where it leads, both as a browser reads them.
    package struct Link: Sendable {
        package let text: String
        package let url: URL
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The page `authUri` opens (an HTML page, or a refusal with status 400).
    package static func open(_ authUri: URL) throws -> FakeOAuthProvider.Browser.Page {
        try FakeOAuthProvider.Browser.get(authUri)
    }

    /// Where the page at `authUri` sends the browser for `choice`: the app's `continueUri` with `code` and `state`,
    /// or with `error=access_denied`, `error_description` and `state`.
    ///
    /// - Throws: ``Failure`` when the page or the answer is refused, or has no such account.
    package static func answer(_ authUri: URL, _ choice: Choice) throws -> URL {
        let page = try open(authUri)
        guard page.status == 200 else { throw Failure(description: "the page answered \(page.status): \(page.body)") }
        let target: URL
        switch choice {
        case .firstAccount:
            guard let first = accounts(in: page.body, at: authUri).first else { throw Failure(description: "no account listed: \(page.body)") }
            target = first.url
        case .account(let text):
            guard let link = accounts(in: page.body, at: authUri).first(where: { $0.text.contains(text) }) else {
                throw Failure(description: "no account reads with \(text): \(page.body)")
            }
            target = link.url
        case .newAccount(let email, let displayName):
            target = try formSubmission(in: page.body, at: authUri, ["email": email, "displayName": displayName ?? ""])
        case .signIn(let email, let displayName):
            if let listed = accounts(in: page.body, at: authUri).first(where: { $0.text.contains("<\(email)>") }) {
                target = listed.url
            } else {
                target = try formSubmission(in: page.body, at: authUri, ["email": email, "displayName": displayName ?? ""])
            }
        case .decline:
            guard let href = attribute("href", ofFirst: #"<a class="decline""#, in: page.body),
                let url = URL(string: href, relativeTo: authUri)?.absoluteURL
            else { throw Failure(description: "no Decline link: \(page.body)") }
            target = url
        }
        return try redirect(from: target)
    }

    /// Where the answer at `url` (a link or the form's submission) sends the browser.
    package static func redirect(from url: URL) throws -> URL {
        let answer = try FakeOAuthProvider.Browser.get(url)
        guard answer.status == 302, let location = answer.headers["location"], let back = URL(string: location) else {
            throw Failure(description: "the answer was \(answer.status), not a redirect: \(answer.body)")
        }
        return back
    }

    /// The accounts the page lists, as links.
    package static func accounts(in html: String, at pageURL: URL) -> [Link] {
        var links: [Link] = []
        var rest = Substring(html)
        while let start = rest.range(of: #"<a class="account" href=""#) {
            let afterHref = rest[start.upperBound...]
            guard let quote = afterHref.firstIndex(of: "\""), let close = afterHref[quote...].range(of: "</a>") else { break }
            let href = unescaped(String(afterHref[..<quote]))
            let textStart = afterHref[quote...].firstIndex(of: ">").map { afterHref.index(after: $0) } ?? close.lowerBound
            if let url = URL(string: href, relativeTo: pageURL)?.absoluteURL {
                links.append(Link(text: unescaped(String(afterHref[textStart..<close.lowerBound])), url: url))
            }
            rest = afterHref[close.upperBound...]
        }
        return links
    }

    /// The URL a browser GETs when the new-account form is submitted with `values` (its hidden fields kept).
    private static func formSubmission(in html: String, at pageURL: URL, _ values: [String: String]) throws -> URL {
        guard let formStart = html.range(of: #"<form class="new-account""#), let formEnd = html.range(of: "</form>", range: formStart.upperBound..<html.endIndex)
        else { throw Failure(description: "no new-account form: \(html)") }
        let form = String(html[formStart.lowerBound..<formEnd.upperBound])
        guard let action = attribute("action", ofFirst: "<form", in: form) else { throw Failure(description: "the form has no action") }
        var fields: [(String, String)] = []
        var rest = Substring(form)
        while let input = rest.range(of: "<input ") {
            let tagEnd = rest[input.upperBound...].firstIndex(of: ">") ?? rest.endIndex
            let tag = String(rest[input.lowerBound..<tagEnd])
            if let name = attribute("name", ofFirst: "<input", in: tag) {
                fields.append((name, values[name] ?? attribute("value", ofFirst: "<input", in: tag) ?? ""))
            }
            rest = rest[tagEnd...]
        }
        let query = fields.map { "\(formEncoded($0.0))=\(formEncoded($0.1))" }.joined(separator: "&")
        guard let url = URL(string: action + "?" + query, relativeTo: pageURL)?.absoluteURL else {
            throw Failure(description: "the form's action is no URL: \(action)")
        }
        return url
    }

    /// The value of `name` in the first tag of `html` that begins with `tagStart`.
    private static func attribute(_ name: String, ofFirst tagStart: String, in html: String) -> String? {
        guard let tag = html.range(of: tagStart) else { return nil }
        let tagEnd = html[tag.upperBound...].firstIndex(of: ">") ?? html.endIndex
        guard let value = html.range(of: " \(name)=\"", range: tag.upperBound..<tagEnd),
            let quote = html[value.upperBound..<tagEnd].firstIndex(of: "\"")
        else { return nil }
        return unescaped(String(html[value.upperBound..<quote]))
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `application/x-www-form-urlencoded`, as a browser encodes a GET form.
    private static func formEncoded(_ text: String) -> String {
        let kept = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._* ")
        return (text.addingPercentEncoding(withAllowedCharacters: kept) ?? "").replacingOccurrences(of: " ", with: "+")
    }
}
