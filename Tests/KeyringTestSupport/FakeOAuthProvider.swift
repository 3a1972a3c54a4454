import Foundation
import KeyringAuth
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// An OAuth 2 / OpenID Connect provider on loopback for the desktop sign-in's tests: an authorization
/// endpoint that approves at once (a `302` to the redirect URI with a code and the `state`) and a token
/// endpoint that checks the code, the redirect URI, the client and the PKCE verifier, and answers an unsigned
/// ID token (`alg: none`, which the bundled emulator accepts) carrying the request's nonce.
///
/// Plain POSIX sockets, one request at a time on a thread of its own; ``Browser`` stands in for the user's browser.
package final class FakeOAuthProvider: @unchecked Sendable {
    /// What the authorization endpoint received, for the tests to check.
    package struct Authorization: Sendable {
        package let parameters: [String: String]
    }

    package let clientID: String
    package let clientSecret: String?
    /// The claims of the user who signs in (`sub`, `email`, …); `iss`, `aud`, `nonce`, `iat`, `exp` are added.
    package let user: [String: String]
    package let port: Int
    private let listener: Int32
    private let state = Mutex<(authorizations: [Authorization], codes: [String: [String: String]], tokenRequests: Int, requests: Int)>(
        ([], [:], 0, 0))

    /// How the provider answers: as an OpenID Connect provider; as GitHub's web flow (an access token only, which is
    /// the user's JSON claims, as the emulator takes a GitHub token); or as Microsoft's multi-tenant endpoint
    /// (``issuer`` is `…/common/v2.0`, its discovery names the template `…/{tenantid}/v2.0`, and its ID tokens the
    /// tenant's own issuer and `tid`).
    package enum Style: Sendable {
        case openIDConnect
        case gitHub
        case microsoft(tenant: String)
    }

    package let style: Style

    /// Listens on a free port of 127.0.0.1 and serves until ``stop()``.
    package init(
        clientID: String = "desktop-client.apps.example", clientSecret: String? = "desktop-secret", user: [String: String],
        style: Style = .openIDConnect
    ) throws {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.user = user
        self.style = style
        let (fd, port) = try RawTCP.silentListener()  // listening on a free port; this class accepts
        self.listener = fd
        self.port = port
        try OwnThread.detach(name: "fake-oauth") { [self] in serve() }
    }

    /// Stops serving (the socket is shut down; the thread ends).
    package func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    package var base: String { "http://127.0.0.1:\(port)" }

    /// The issuer to discover the provider by: for Microsoft's style, its multi-tenant `common` endpoint.
    package var issuer: String {
        if case .microsoft = style { return "\(base)/common/v2.0" }
        return base
    }

    /// This provider as the desktop sign-in names it.
    package func provider(_ providerID: String = "google.com") -> DesktopOAuthProvider {
        if case .gitHub = style {
            return DesktopOAuthProvider(
                providerID: "github.com", authorizationEndpoint: URL(string: "\(base)/authorize")!, tokenEndpoint: URL(string: "\(base)/token")!,
                issuer: nil, scopes: ["read:user", "user:email"])
        }
        return .openIDConnect(
            providerID: providerID, issuer: issuer, authorizationEndpoint: URL(string: "\(base)/authorize")!,
            tokenEndpoint: URL(string: "\(base)/token")!)
    }

    package var authorizations: [Authorization] { state.withLock { $0.authorizations } }
    package var tokenRequests: Int { state.withLock { $0.tokenRequests } }
    /// Every request answered, of any path.
    package var requests: Int { state.withLock { $0.requests } }

    // MARK: Serving

    private func serve() {
        // Concurrently, as a provider serves: a browser opens connections ahead and sends nothing on some.
        Self.serve(listener, concurrently: true) { [self] head, body in
            state.withLock { $0.requests += 1 }
            return respond(head: head, body: body)
        }
    }

    /// Accepts connections on `listener` until it is shut down, one request each, answered with what `respond` makes
    /// of its head and body; a request `respond` answers with `nil` keeps its connection open, handed to `hold`.
    /// `concurrently`: each connection on a thread of its own, else one after the other in accepting order.
    package static func serve(
        _ listener: Int32, concurrently: Bool = false, hold: @escaping @Sendable (Int32) -> Void = { close($0) },
        _ respond: @escaping @Sendable (String, String) -> String?
    ) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let answer: @Sendable () -> Void = {
                let (head, body) = readRequest(connection)
                guard let response = respond(head, body) else { return hold(connection) }
                _ = Array(response.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(connection, Int32(SHUT_WR))
                close(connection)
            }
            if concurrently, (try? OwnThread.detach(name: "fake-http-request", answer)) != nil { continue }
            answer()
        }
    }

    private func respond(head: String, body: String) -> String {
        let target = head.split(separator: "\r\n").first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let components = URLComponents(string: target)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        switch (head.hasPrefix("GET "), components?.path) {
        case (true, "/authorize"), (true, "/login/oauth/authorize"): return authorize(query)
        case (true, URLComponents(string: issuer + "/.well-known/openid-configuration")?.path):
            let named: String
            if case .microsoft = style { named = "\(base)/{tenantid}/v2.0" } else { named = issuer }
            return Self.response("200 OK", json: [
                "issuer": named, "authorization_endpoint": "\(base)/authorize", "token_endpoint": "\(base)/token",
                "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                "id_token_signing_alg_values_supported": ["none"],
            ])
        case (false, "/token"), (false, "/login/oauth/access_token"): return token(Self.form(body))
        default: return Self.response("404 Not Found", json: ["error": "not_found"])
        }
    }

    private func authorize(_ query: [String: String]) -> String {
        state.withLock { $0.authorizations.append(Authorization(parameters: query)) }
        guard query["response_type"] == "code", query["client_id"] == clientID, query["code_challenge_method"] == "S256",
            let challenge = query["code_challenge"], let redirect = query["redirect_uri"], redirect.hasPrefix("http://127.0.0.1:"),
            let returned = query["state"]
        else { return Self.response("400 Bad Request", json: ["error": "invalid_request"]) }
        let code = "code-" + UUID().uuidString
        state.withLock { $0.codes[code] = ["challenge": challenge, "redirect_uri": redirect, "nonce": query["nonce"] ?? ""] }
        let separator = redirect.contains("?") ? "&" : "?"
        var location = "\(redirect)\(separator)code=\(code)&state=\(Self.encoded(returned))"
        if case .openIDConnect = style { location += "&iss=\(Self.encoded(issuer))" }  // GitHub and Microsoft send none
        return "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    }

    private func token(_ form: [String: String]) -> String {
        let issued = state.withLock { state -> [String: String]? in
            state.tokenRequests += 1
            return form["code"].flatMap { state.codes.removeValue(forKey: $0) }  // one use
        }
        guard form["grant_type"] == "authorization_code", let issued else {
            return Self.response("400 Bad Request", json: ["error": "invalid_grant", "error_description": "unknown or used code"])
        }
        guard form["client_id"] == clientID, form["client_secret"] == clientSecret else {
            return Self.response("401 Unauthorized", json: ["error": "invalid_client"])
        }
        guard form["redirect_uri"] == issued["redirect_uri"],
            let verifier = form["code_verifier"], PKCE.base64URL(SHA256.digest(Array(verifier.utf8))) == issued["challenge"]
        else {
            return Self.response("400 Bad Request", json: ["error": "invalid_grant", "error_description": "PKCE verification failed"])
        }
        if case .gitHub = style {
            let token = String(decoding: try! JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)
            return Self.response("200 OK", json: ["access_token": token, "token_type": "bearer", "scope": "read:user,user:email"])
        }
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = user
        claims["iss"] = issuer
        if case .microsoft(let tenant) = style {
            claims["iss"] = "\(base)/\(tenant)/v2.0"
            claims["tid"] = tenant
        }
        claims["aud"] = clientID
        claims["nonce"] = issued["nonce"]
        claims["iat"] = now
        claims["exp"] = now + 3600
        if claims["email_verified"] as? String == "true" { claims["email_verified"] = true }
        return Self.response("200 OK", json: [
            "access_token": "access-" + UUID().uuidString, "id_token": Self.unsignedJWT(claims), "token_type": "Bearer", "expires_in": 3599,
            "scope": "openid email profile",
        ])
    }

    // MARK: HTTP, minimally

    package static func unsignedJWT(_ claims: [String: Any]) -> String {
        let header = PKCE.base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = PKCE.base64URL(Array(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])))
        return "\(header).\(payload)."
    }

    static func response(_ status: String, json: [String: Any]) -> String {
        let body = String(decoding: try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
        return "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? ""
    }

    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count == 2 ? parts[1] : ""
        }
        return fields
    }

    /// The head and the body (by `Content-Length`) of one request.
    static func readRequest(_ fd: Int32) -> (String, String) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        while received.firstRange(of: end) == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), "") }
            received += buffer[0..<count]
        }
        let split = received.firstRange(of: end)!
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self)
        var body = Array(received[split.upperBound...])
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while body.count < length {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            body += buffer[0..<count]
        }
        return (head, String(decoding: body, as: UTF8.self))
    }

    /// A stand-in for the user's browser: plain HTTP/1.1 GETs over loopback, following the provider's redirect.
    package enum Browser {
        package struct Page: Sendable {
            package let status: Int
            package let headers: [String: String]
            package let body: String
        }

        /// GETs `url` (on 127.0.0.1) and returns the answer; `asABrowser`: the server closes the connection first,
        /// as with a browser (which keeps its side open), instead of this client.
        package static func get(_ url: URL, asABrowser: Bool = false, via address: String? = nil) throws -> Page {
            let port = url.port ?? 80
            let target = url.path.isEmpty ? "/" : url.path
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery.map { "?" + $0 } ?? ""
            // As a browser: the URL's host in Host, and `localhost` reached at 127.0.0.1 unless `address` says otherwise.
            let name = url.host ?? "127.0.0.1"
            let request = "GET \(target)\(query) HTTP/1.1\r\nHost: \(name):\(port)\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
            let connectTo = address ?? (name == "localhost" ? "127.0.0.1" : name)
            let answer = String(
                decoding: try RawTCP.exchange(host: connectTo, port: port, bytes: Array(request.utf8), halfClose: !asABrowser), as: UTF8.self)
            guard let split = answer.range(of: "\r\n\r\n") else {
                throw RawTCP.Failure(description: "no HTTP answer from \(url.host ?? "?"):\(port): \(answer.debugDescription)")
            }
            let lines = answer[..<split.lowerBound].split(separator: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                if let colon = line.firstIndex(of: ":") {
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return Page(status: status, headers: headers, body: String(answer[split.upperBound...]))
        }

        /// The redirect URL the provider sends the browser to for `authorizationURL`.
        package static func redirect(for authorizationURL: URL) throws -> URL {
            let page = try get(authorizationURL)
            guard page.status == 302, let location = page.headers["location"], let url = URL(string: location) else {
                throw RawTCP.Failure(description: "the provider answered \(page.status): \(page.body)")
            }
            return url
        }

        /// Signs in as the user would: opens the authorization URL, follows the redirect to the app, returns its page.
        package static func signIn(_ authorizationURL: URL) throws -> Page {
            try get(try redirect(for: authorizationURL))
        }
    }
}

/// The user's browser, for a desktop sign-in under test: a directory holding an `xdg-open` that hands the URL to
/// auth-probe's stand-in browser (it follows the provider's redirect back), which writes the page it was left on
/// to `page`. Put `path` first on the `PATH` of whoever opens the browser.
package enum FakeBrowser {
    /// At the emulator's provider page, the browser signs in as `email` (the listed account, else a new one).
    package static func make(email: String = "ada@example.com") throws -> (path: String, page: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent("page.html")
        let script = directory.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nexec '\(try Harness.product("auth-probe"))' browse \"$1\" '\(email)' > '\(page.path)' 2>&1\n"
            .write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return (directory.path, page)
    }
}
