import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The loopback redirect's listener (RFC 8252 §7.3): a TCP socket on `127.0.0.1` only, one request at a
/// time, plain POSIX sockets on a thread of its own (never Swift's cooperative pool).
///
/// It answers 404 to requests for other paths (a browser's `/favicon.ico`) and drops connections from any
/// peer but `127.0.0.1`, then hands over the first `GET` of the redirect path; the flow stops listening at
/// once, so a second request is refused by the system. Nothing it reads is logged.
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

    /// Waits for the redirect until `deadline` or until the task is cancelled.
    func nextCallback(until deadline: ContinuousClock.Instant) async -> Result<Callback, Ending> {
        let (listener, wakeRead, wakeWrite) = descriptors.withLock { ($0.listener, $0.wakeRead, $0.wakeWrite) }
        guard listener >= 0 else { return .failure(.failed("the listener was closed")) }
        let path = path, host = "127.0.0.1:\(port)"
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Callback, Ending>, Never>) in
                Thread {
                    continuation.resume(returning: Self.accept(listener, wake: wakeRead, path: path, host: host, until: deadline))
                }.start()
            }
        } onCancel: {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The blocking loop (on its own thread)

    private static func accept(
        _ listener: Int32, wake: Int32, path: String, host: String, until deadline: ContinuousClock.Instant
    ) -> Result<Callback, Ending> {
        while true {
            switch waitReadable(listener, wake: wake, until: deadline) {
            case .failure(let ending): return .failure(ending)
            case .success: break
            }
            var peer = sockaddr_in()
            var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let connection = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &peerLength) }
            }
            guard connection >= 0 else {
                if [EINTR, EAGAIN, ECONNABORTED, EPROTO].contains(errno) { continue }
                return .failure(.failed("accept failed (\(String(cString: strerror(errno))))"))
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            // Only the machine's own browser: the peer must be 127.0.0.1 itself.
            guard peer.sin_family == sa_family_t(AF_INET), UInt32(bigEndian: peer.sin_addr.s_addr) == 0x7f00_0001 else {
                Glibc.close(connection)
                continue
            }
            let requestDeadline = min(deadline, .now + requestLimit)
            let head: [UInt8]
            switch readHead(connection, wake: wake, until: requestDeadline) {
            case .success(let bytes): head = bytes
            case .failure(.cancelled):
                Glibc.close(connection)
                return .failure(.cancelled)
            case .failure:
                reply(connection, status: "400 Bad Request", page: RedirectPage.refused("The request was incomplete or too large."))
                continue
            }
            guard let request = RedirectRequest(head: head) else {
                reply(connection, status: "400 Bad Request", page: RedirectPage.refused("The request could not be read."))
                continue
            }
            guard request.method == "GET" else {
                reply(connection, status: "405 Method Not Allowed", page: RedirectPage.refused("Only GET is answered here."))
                continue
            }
            // A page of another site that resolves its own name to 127.0.0.1 sends its own Host (DNS rebinding).
            guard request.host == host else {
                reply(connection, status: "400 Bad Request", page: RedirectPage.refused("This address answers only as \(host)."))
                continue
            }
            guard request.path == path else {
                reply(connection, status: "404 Not Found", page: RedirectPage.refused("Nothing here."))
                continue
            }
            return .success(Callback(parameters: request.parameters, connection: connection))
        }
    }

    /// Waits until `fd` is readable, the wake pipe is written (cancelled), or the deadline passes.
    private static func waitReadable(_ fd: Int32, wake: Int32, until deadline: ContinuousClock.Instant) -> Result<Void, Ending> {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return .failure(.timedOut) }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(clamping: Int64((remaining.inMilliseconds).rounded(.up)))
            let ready = poll(&fds, 2, max(1, milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(.failed("poll failed (\(String(cString: strerror(errno))))"))
            }
            if fds[1].revents != 0 { return .failure(.cancelled) }
            if fds[0].revents & Int16(POLLNVAL) != 0 { return .failure(.failed("the listener was closed")) }
            if fds[0].revents != 0 { return .success(()) }
        }
    }

    /// The request head (through the blank line), at most ``maximumHeadBytes``.
    private static func readHead(_ fd: Int32, wake: Int32, until deadline: ContinuousClock.Instant) -> Result<[UInt8], Ending> {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if case .failure(let ending) = waitReadable(fd, wake: wake, until: deadline) { return .failure(ending) }
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(.failed("recv failed"))
            }
            if count == 0 { return .failure(.failed("closed before the request ended")) }
            received += buffer[0..<count]
            if let range = received.firstRange(of: end) { return .success(Array(received[..<range.lowerBound])) }
            if received.count > maximumHeadBytes { return .failure(.failed("request too large")) }
        }
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

    static let signedIn = page(title: "Signed in", text: "You can close this tab and return to the app.")

    static func failed(_ reason: String) -> String {
        page(title: "Sign-in failed", text: escape(reason) + " You can close this tab and return to the app.")
    }

    static func refused(_ reason: String) -> String { page(title: "Not answered", text: escape(reason)) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
