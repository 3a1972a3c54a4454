import Foundation
import Synchronization
import SystemSupport

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

    let port: UInt16
    let path: String
    /// The listening socket and the wake pipe's ends; -1 once closed. Guarded by `lock`.
    let descriptors: Mutex<(listener: Int32, wakeRead: Int32, wakeWrite: Int32)>

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

    /// Stops listening: connections not yet accepted are reset, later ones refused, at once. Idempotent.
    func close() {
        descriptors.withLock { ends in
            // Shut down first: a thread still polling the descriptor keeps the socket open past `close` until its poll
            // returns, and the port would go on accepting meanwhile.
            if ends.listener >= 0 {
                _ = shutdown(ends.listener, Int32(SHUT_RDWR))
                Glibc.close(ends.listener)
            }
            ends.listener = -1
        }
    }

    private static func socketError(_ what: String, _ error: Int32) -> AuthError {
        AuthError(
            .webInternalError,
            "The desktop sign-in could not \(what) for the browser's redirect (\(String(cString: strerror(error)))); "
                + "check that this process may listen on 127.0.0.1.")
    }
}
