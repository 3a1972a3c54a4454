import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

extension LoopbackRedirectListener {
    /// The largest request head read (request line and headers): a redirect's is well under 2 KiB, a verification
    /// page's answer with its two reCAPTCHA tokens under 8 KiB.
    static let maximumHeadBytes = 16 * 1024
    /// How long one connection may take to send its request.
    static let requestLimit: Duration = .seconds(10)

    /// Waits for the redirect that carries `state` until `deadline` or until the task is cancelled.
    /// `page`, when given, is served to every `GET /` meanwhile.
    func nextCallback(state: String, until deadline: ContinuousClock.Instant, serving page: ServedPage? = nil) async -> Result<Callback, Ending> {
        let (listeners, wakeRead, wakeWrite) = descriptors.withLock { ($0.listeners, $0.wakeRead, $0.wakeWrite) }
        guard !listeners.isEmpty else { return .failure(.failed("the listener was closed")) }
        let expected = Expected(path: path, host: "\(host.name):\(port)", state: state, page: page)
        return await withTaskCancellationHandler {
            do throws(OwnThreadFailure) {
                return try await OwnThread.run(name: "redirect-listen") {
                    Self.accept(listeners, wake: wakeRead, expecting: expected, until: deadline)
                }
            } catch {
                return .failure(.failed(error.explanation))
            }
        } onCancel: {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The blocking loop (on its own thread)

    /// What the redirect must be: its path, the `Host` it is sent to, and the flow's `state`; and the page served at `/`.
    struct Expected: Sendable {
        let path: String
        let host: String
        let state: String
        var page: ServedPage?
    }

    /// A page the listener serves at `/` while it waits (the phone verification's), with its content security policy.
    struct ServedPage: Sendable {
        let html: String
        let contentSecurityPolicy: String
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
        _ listeners: [Int32], wake: Int32, expecting expected: Expected, until deadline: ContinuousClock.Instant
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
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            fds += pending.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            fds += listeners.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(clamping: Int64((wakeUp - now).inMilliseconds.rounded(.up)))
            let ready = poll(&fds, nfds_t(fds.count), max(1, milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                closeAll()
                return .failure(.failed("poll failed (\(String(cString: strerror(errno))))"))
            }
            if fds[0].revents != 0 {
                closeAll()
                return .failure(.cancelled)
            }
            let listening = fds.suffix(listeners.count)
            if listening.contains(where: { $0.revents & Int16(POLLNVAL) != 0 }) {
                closeAll()
                return .failure(.failed("the listener was closed"))
            }
            // Requests first (the accepted list changes below).
            var finished: Set<Int32> = []
            for (index, connection) in pending.enumerated() where fds[index + 1].revents != 0 {
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
            for listener in listening where listener.revents != 0 {
                var peer = sockaddr_in6()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in6>.size)
                let connection = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener.fd, $0, &peerLength) }
                }
                guard connection >= 0 else {
                    if [EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO].contains(errno) { continue }
                    closeAll()
                    return .failure(.failed("accept failed (\(String(cString: strerror(errno))))"))
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                // Only the machine's own browser: the peer must be the loopback address itself.
                guard isLoopback(peer) else {
                    Glibc.close(connection)
                    continue
                }
                if pending.count == maximumPending { Glibc.close(pending.removeFirst().fd) }
                pending.append(Pending(fd: connection, deadline: min(deadline, .now + requestLimit)))
            }
        }
    }

    /// Whether a peer's address (an IPv4 one read into a `sockaddr_in6`'s room) is `127.0.0.1` or `::1`.
    private static func isLoopback(_ peer: sockaddr_in6) -> Bool {
        switch Int32(peer.sin6_family) {
        case AF_INET:
            var peer = peer
            return withUnsafeBytes(of: &peer) { bytes in
                UInt32(bigEndian: bytes.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: UInt32.self)) == 0x7f00_0001
            }
        case AF_INET6:
            var address = peer.sin6_addr
            var loopback = in6addr_loopback
            return memcmp(&address, &loopback, MemoryLayout<in6_addr>.size) == 0
        default:
            return false
        }
    }
}
