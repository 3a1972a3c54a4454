import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The loopback redirect's listener (RFC 8252 §7.3): a TCP socket on `127.0.0.1` only, one request at a
/// time, plain POSIX sockets on a thread of its own (never Swift's cooperative pool).
///
/// It answers 404 to requests for other paths (a browser's `/favicon.ico`), 400 to requests of the redirect
/// path without the flow's `state` (any local process, or a web page, can find the port and send one: they
/// must not end the sign-in), and drops connections from any peer but `127.0.0.1`; it hands over the first
/// `GET` of the redirect path that carries the flow's `state`, and the flow stops listening at once, so a
/// second request is refused by the system. Nothing it reads is logged.
final class LoopbackRedirectListener: @unchecked Sendable {
    /// One request of the redirect path: its query parameters and the connection to answer on.
    struct Callback: Sendable {
        /// The query's parameters, percent-decoded; a parameter given twice maps to `nil`.
        let parameters: [String: String?]
        let connection: Int32

        /// The single value of `name`, or `nil` when absent or repeated.
        func value(_ name: String) -> String? { parameters[name] ?? nil }
        /// Whether `name` appears more than once.
        func isRepeated(_ name: String) -> Bool { parameters.keys.contains(name) && parameters[name]! == nil }
    }

    /// Why no callback came.
    enum Ending: Error {
        case timedOut, cancelled, failed(String)
    }

    /// The largest request head read (request line and headers); a redirect's is well under 2 KiB.
    static let maximumHeadBytes = 8 * 1024
    /// How long one connection may take to send its request.
    static let requestLimit: Duration = .seconds(10)

    let port: UInt16
    let path: String
    /// The listening socket and the wake pipe's ends; -1 once closed. Guarded by `lock`.
    private let descriptors: Mutex<(listener: Int32, wakeRead: Int32, wakeWrite: Int32)>

    /// Listens on `127.0.0.1:port` (0: a free port the system picks).
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/webContextAlreadyPresented`` when the port is taken,
    ///   ``AuthErrorCode/webInternalError`` when no socket can be made.
    init(port: UInt16, path: String) throws(AuthError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.socketError("make a socket", errno) }
        // A fixed port can be listened on again at once after a flow, while the last connection is in TIME_WAIT.
        // (Not for port 0: the system would then hand out recently used ports sooner.)
        if port != 0 {
            var reuse: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 ? (listen(fd, 8) == 0 ? (getsockname(fd, address, &length) == 0 ? 0 : errno) : errno) : errno
            }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            if bound == EADDRINUSE {
                throw AuthError(
                    .webContextAlreadyPresented,
                    "Port \(port) on 127.0.0.1 is in use (another sign-in still waiting, or another program); finish or end it, "
                        + "or use port 0 to let the system pick a free port.")
            }
            throw Self.socketError("listen on 127.0.0.1:\(port)", bound)
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Self.socketError("make a pipe", error)
        }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.path = path
        self.descriptors = Mutex((fd, pipeEnds[0], pipeEnds[1]))
    }

    deinit {
        close()
        descriptors.withLock { ends in
            Glibc.close(ends.wakeRead)
            Glibc.close(ends.wakeWrite)
        }
    }

    /// `http://127.0.0.1:PORT/path`.
    var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops listening: connections not yet accepted are reset, later ones refused. Idempotent.
    func close() {
        descriptors.withLock { ends in
            if ends.listener >= 0 { Glibc.close(ends.listener) }
            ends.listener = -1
        }
    }

    /// Waits for the redirect that carries `state` until `deadline` or until the task is cancelled.
    func nextCallback(state: String, until deadline: ContinuousClock.Instant) async -> Result<Callback, Ending> {
        let (listener, wakeRead, wakeWrite) = descriptors.withLock { ($0.listener, $0.wakeRead, $0.wakeWrite) }
        guard listener >= 0 else { return .failure(.failed("the listener was closed")) }
        let expected = Expected(path: path, host: "127.0.0.1:\(port)", state: state)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Callback, Ending>, Never>) in
                Thread {
                    continuation.resume(returning: Self.accept(listener, wake: wakeRead, expecting: expected, until: deadline))
                }.start()
            }
        } onCancel: {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The blocking loop (on its own thread)

    /// What the redirect must be: its path, the `Host` it is sent to, and the flow's `state`.
    struct Expected: Sendable {
        let path: String
        let host: String
        let state: String
    }

    /// A connection whose request head is still arriving.
    private struct Pending {
        let fd: Int32
        var received: [UInt8] = []
        let deadline: ContinuousClock.Instant
    }

    /// The most connections read at once; browsers open a few speculatively and send nothing on some.
    static let maximumPending = 16

    /// Serves every connection at once with `poll`, so that a connection that sends nothing (a browser's
    /// speculative pre-connect, a stray local client) holds up nobody until its own limit.
    private static func accept(
        _ listener: Int32, wake: Int32, expecting expected: Expected, until deadline: ContinuousClock.Instant
    ) -> Result<Callback, Ending> {
        var pending: [Pending] = []
        func closeAll() {
            pending.forEach { Glibc.close($0.fd) }
            pending.removeAll()
        }
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let now = ContinuousClock.now
            pending.removeAll { connection in
                guard connection.deadline <= now else { return false }
                Glibc.close(connection.fd)
                return true
            }
            guard deadline > now else {
                closeAll()
                return .failure(.timedOut)
            }
            let wakeUp = pending.map(\.deadline).reduce(deadline, min)
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            fds += pending.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(clamping: Int64((wakeUp - now).inMilliseconds.rounded(.up)))
            let ready = poll(&fds, nfds_t(fds.count), max(1, milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                closeAll()
                return .failure(.failed("poll failed (\(String(cString: strerror(errno))))"))
            }
            if fds[1].revents != 0 {
                closeAll()
                return .failure(.cancelled)
            }
            if fds[0].revents & Int16(POLLNVAL) != 0 {
                closeAll()
                return .failure(.failed("the listener was closed"))
            }
            // Requests first (the accepted list changes below).
            var finished: Set<Int32> = []
            for (index, connection) in pending.enumerated() where fds[index + 2].revents != 0 {
                let count = recv(connection.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else {
                    Glibc.close(connection.fd)
                    finished.insert(connection.fd)
                    continue
                }
                pending[index].received += buffer[0..<count]
                let received = pending[index].received
                if let range = received.firstRange(of: end) {
                    finished.insert(connection.fd)
                    if let callback = answer(connection.fd, head: Array(received[..<range.lowerBound]), expecting: expected) {
                        pending.filter { !finished.contains($0.fd) }.forEach { Glibc.close($0.fd) }
                        return .success(callback)
                    }
                } else if received.count > maximumHeadBytes {
                    finished.insert(connection.fd)
                    reply(connection.fd, status: "431 Request Header Fields Too Large", page: RedirectPage.refused("The request is too large."))
                }
            }
            pending.removeAll { finished.contains($0.fd) }
            if fds[0].revents != 0 {
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let connection = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &peerLength) }
                }
                guard connection >= 0 else {
                    if [EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO].contains(errno) { continue }
                    closeAll()
                    return .failure(.failed("accept failed (\(String(cString: strerror(errno))))"))
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                // Only the machine's own browser: the peer must be 127.0.0.1 itself.
                guard peer.sin_family == sa_family_t(AF_INET), UInt32(bigEndian: peer.sin_addr.s_addr) == 0x7f00_0001 else {
                    Glibc.close(connection)
                    continue
                }
                if pending.count == maximumPending { Glibc.close(pending.removeFirst().fd) }
                pending.append(Pending(fd: connection, deadline: min(deadline, .now + requestLimit)))
            }
        }
    }

    /// Answers a request that is not the redirect and returns `nil`, or returns the redirect's callback.
    private static func answer(_ connection: Int32, head: [UInt8], expecting expected: Expected) -> Callback? {
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
        return Callback(parameters: request.parameters, connection: connection)
    }

    /// Sends an HTML page and closes the connection.
    static func reply(_ connection: Int32, status: String, page: String) {
        let body = Array(page.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n"
            + "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\nConnection: close\r\n\r\n"
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

    private static func socketError(_ what: String, _ error: Int32) -> AuthError {
        AuthError(
            .webInternalError,
            "The desktop sign-in could not \(what) for the browser's redirect (\(String(cString: strerror(error)))); "
                + "check that this process may listen on 127.0.0.1.")
    }
}

/// One request head, parsed with limits: `METHOD /path?query HTTP/1.x` and the `Host` header.
struct RedirectRequest {
    let method: String
    let path: String
    let host: String?
    let parameters: [String: String?]

    /// Parameters beyond this many make the request unreadable.
    static let maximumParameters = 32

    init?(head: [UInt8]) {
        guard let text = String(validating: head, as: UTF8.self) else { return nil }
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(requestLine[0])
        let target = requestLine[1]
        let query: Substring
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = target[target.index(after: mark)...]
        } else {
            path = String(target)
            query = ""
        }
        var host: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            if line[..<colon].lowercased() == "host" {
                guard host == nil else { return nil }
                host = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        self.host = host
        var parameters: [String: String?] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count == 2 ? parts[1] : "") else { return nil }
            parameters[name] = parameters.keys.contains(name) ? String?.none : value
            guard parameters.count <= Self.maximumParameters else { return nil }
        }
        self.parameters = parameters
    }

    /// A query component: `+` is a space, then percent-decoding.
    private static func decode(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// The small pages the browser is left on.
enum RedirectPage {
    static func page(title: String, text: String) -> String {
        """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}</style></head>
        <body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }

    static let signedIn = page(title: "Sign-in finished", text: "You can close this tab and return to the app.")

    static func failed(_ reason: String) -> String {
        page(title: "Sign-in failed", text: escape(reason) + " You can close this tab and return to the app.")
    }

    static func refused(_ reason: String) -> String { page(title: "Not answered", text: escape(reason)) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
