import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension LoopbackRedirectListener {
    /// Answers a request that is not the redirect and returns `nil`, or returns the redirect's callback.
    static func answer(_ connection: Int32, head: [UInt8], expecting expected: Expected) -> Callback? {
        guard let request = RedirectRequest(head: head) else {
            reply(connection, status: "400 Bad Request", page: RedirectPage.refused("The request could not be read."))
            return nil
        }
        guard request.method == "GET" else {
            reply(connection, status: "405 Method Not Allowed", page: RedirectPage.refused("Only GET is answered here."))
            return nil
        }
        // A page of another site that resolves its own name to 127.0.0.1 sends its own Host (DNS rebinding).
        guard request.host == expected.host else {
            reply(connection, status: "400 Bad Request", page: RedirectPage.refused("This address answers only as \(expected.host)."))
            return nil
        }
        if request.path == "/", request.target == "/", let page = expected.page {
            reply(connection, status: "200 OK", page: page.html, contentSecurityPolicy: page.contentSecurityPolicy)
            return nil
        }
        guard request.path == expected.path else {
            reply(connection, status: "404 Not Found", page: RedirectPage.refused("Nothing here."))
            return nil
        }
        // Without this flow's state it is not the provider's answer to this sign-in: refused, and the flow waits on.
        guard let state = request.parameters["state"] ?? nil, constantTimeEqual(state, expected.state) else {
            reply(connection, status: "400 Bad Request", page: RedirectPage.refused(
                "This is not the answer of the sign-in waiting here (an old tab, or another page); it was ignored."))
            return nil
        }
        return Callback(parameters: request.parameters, target: request.target, connection: connection)
    }

    /// The policy of the pages the listener answers with: no script, no request, inline style only.
    static let closedPagePolicy = "default-src 'none'; style-src 'unsafe-inline'"

    /// Sends an HTML page and closes the connection.
    static func reply(_ connection: Int32, status: String, page: String, contentSecurityPolicy: String = closedPagePolicy) {
        let body = Array(page.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n"
            + "Content-Security-Policy: \(contentSecurityPolicy)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeMutableBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            sent += count
        }
        bytes.removeAll()
        shutdown(connection, Int32(SHUT_WR))
        Glibc.close(connection)
    }

    /// Whether `a` and `b` are equal, in a time that does not depend on where they first differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
