import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// The loopback redirect's listener (RFC 8252 §7.3): TCP sockets on the loopback interface only, plain POSIX sockets
/// on a thread of its own (never Swift's cooperative pool). It listens as its ``Host`` says: on `127.0.0.1`
/// (redirect `http://127.0.0.1:PORT/`), or as `localhost` on `127.0.0.1` and `::1` at one port (redirect
/// `http://localhost:PORT/`, for providers that take a port only with that name, such as Microsoft's).
///
/// It answers 404 to requests for other paths (a browser's `/favicon.ico`), 400 to requests of the redirect
/// path without the flow's `state` (any local process, or a web page, can find the port and send one: they
/// must not end the sign-in), and drops connections from any peer but the loopback address it listens on; it
/// hands over the first `GET` of the redirect path that carries the flow's `state`, and the flow stops listening
/// at once, so a second request is refused by the system. Nothing it reads is logged.
final class LoopbackRedirectListener: @unchecked Sendable {
    /// One request of the redirect path: its query parameters, the request target as sent, and the connection to
    /// answer on.
    struct Callback: Sendable {
        /// The query's parameters, percent-decoded; a parameter given twice maps to `nil`.
        let parameters: [String: String?]
        /// The request's target as the browser sent it: the redirect path and its query, still percent-encoded.
        let target: String
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

    /// The name the redirect is sent to, and so where the listener listens.
    enum Host: Sendable {
        /// `127.0.0.1`: Google's and most providers' loopback redirect.
        case ipv4
        /// `localhost`, listened for on `127.0.0.1` and (where the system has it) `::1` at the same port: the
        /// browser may try either. Microsoft ignores the port of `http://localhost` redirects only.
        case localhost

        var name: String { self == .ipv4 ? "127.0.0.1" : "localhost" }
    }

    let port: UInt16
    let path: String
    let host: Host
    /// The listening sockets and the wake pipe's ends; none once closed. Guarded by `lock`.
    let descriptors: Mutex<(listeners: [Int32], wakeRead: Int32, wakeWrite: Int32)>

    /// How often a free port is looked for again when `::1` has the port the system gave on `127.0.0.1` taken.
    static let portAttempts = 16

    /// Listens on `host` at `port` (0: a free port the system picks, the same one on both addresses of `localhost`).
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/webContextAlreadyPresented`` when the port is taken,
    ///   ``AuthErrorCode/webInternalError`` when no socket can be made.
    init(port: UInt16, path: String, host: Host = .ipv4) throws(AuthError) {
        var listeners: [Int32] = []
        var bound = port
        attempts: for _ in 0..<(port == 0 ? Self.portAttempts : 1) {
            let (fd, given): (Int32, UInt16)
            switch Self.listen(on: .ipv4, port: port) {
            case .success(let listening): (fd, given) = listening
            case .failure(let error): throw Self.failure(error.code, port: port, host: host, address: "127.0.0.1")
            }
            listeners = [fd]
            bound = given
            guard host == .localhost else { break }
            switch Self.listen(on: .ipv6, port: given) {
            case .success(let (fd6, _)):
                listeners.append(fd6)
                break attempts
            case .failure(let error) where error.code == EADDRNOTAVAIL || error.code == EAFNOSUPPORT:
                break attempts  // no IPv6 loopback here: browsers fall back to 127.0.0.1
            case .failure(let error):
                Glibc.close(fd)
                listeners = []
                // Another program has this port on ::1 only: with port 0, ask the system for another.
                guard error.code == EADDRINUSE, port == 0 else {
                    throw Self.failure(error.code, port: port == 0 ? given : port, host: host, address: "::1")
                }
            }
        }
        guard !listeners.isEmpty else {
            throw AuthError(.webContextAlreadyPresented, "No port free on both 127.0.0.1 and ::1 was found for the browser's redirect; try again.")
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let error = errno
            listeners.forEach { _ = Glibc.close($0) }
            throw Self.socketError("make a pipe", error)
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.port = bound
        self.path = path
        self.host = host
        self.descriptors = Mutex((listeners, pipeEnds[0], pipeEnds[1]))
    }

    private enum Family { case ipv4, ipv6 }

    /// A socket call's `errno`.
    private struct Errno: Error { let code: Int32 }

    /// A non-blocking socket listening on the loopback address of `family` at `port`, and the port it got; or `errno`.
    private static func listen(on family: Family, port: UInt16) -> Result<(Int32, UInt16), Errno> {
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Errno(code: errno)) }
        var on: Int32 = 1
        // A fixed port can be listened on again at once after a flow, while the last connection is in TIME_WAIT.
        // (Not for port 0: the system would then hand out recently used ports sooner.)
        if port != 0 { _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let result: Int32
        var given: UInt16 = 0
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(port.bigEndian)
            address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
            result = bindAndListen(fd, &address)
            given = UInt16(bigEndian: address.sin_port)
        case .ipv6:
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(port.bigEndian)
            address.sin6_addr = in6addr_loopback
            result = bindAndListen(fd, &address)
            given = UInt16(bigEndian: address.sin6_port)
        }
        guard result == 0 else {
            Glibc.close(fd)
            return .failure(Errno(code: result))
        }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        return .success((fd, given))
    }

    /// Binds `fd` to `address`, listens, and reads back the address bound (its port); 0 or `errno`.
    private static func bindAndListen<Address>(_ fd: Int32, _ address: inout Address) -> Int32 {
        var length = socklen_t(MemoryLayout<Address>.size)
        return withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 ? (Glibc.listen(fd, 8) == 0 ? (getsockname(fd, address, &length) == 0 ? 0 : errno) : errno) : errno
            }
        }
    }

    private static func failure(_ error: Int32, port: UInt16, host: Host, address: String) -> AuthError {
        guard error == EADDRINUSE else { return socketError("listen on \(address) port \(port)", error) }
        return AuthError(
            .webContextAlreadyPresented,
            "Port \(port) on \(address) is in use (another sign-in still waiting, or another program); finish or end it, "
                + "or use port 0 to let the system pick a free port.")
    }

    deinit {
        close()
        descriptors.withLock { ends in
            Glibc.close(ends.wakeRead)
            Glibc.close(ends.wakeWrite)
        }
    }

    /// `http://127.0.0.1:PORT/path` or `http://localhost:PORT/path`.
    var redirectURI: String { "http://\(host.name):\(port)\(path)" }

    /// Stops listening: connections not yet accepted are reset, later ones refused, at once. Idempotent.
    func close() {
        descriptors.withLock { ends in
            // Shut down first: a thread still polling the descriptor keeps the socket open past `close` until its poll
            // returns, and the port would go on accepting meanwhile.
            for listener in ends.listeners {
                _ = shutdown(listener, Int32(SHUT_RDWR))
                Glibc.close(listener)
            }
            ends.listeners = []
        }
    }

    private static func socketError(_ what: String, _ error: Int32) -> AuthError {
        AuthError(
            .webInternalError,
            "The desktop sign-in could not \(what) for the browser's redirect (\(String(cString: strerror(error)))); "
                + "check that this process may listen on the loopback interface.")
    }
}
