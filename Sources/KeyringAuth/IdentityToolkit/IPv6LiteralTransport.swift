import Foundation
import SecretKeychain
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 POST over plain TCP to an IPv6 address written in the URL (`http://[::1]:9099/…`),
/// the transport of emulator endpoints with an IPv6 host.
///
/// Foundation's `URLSession` on Linux refuses every such URL with `NSURLErrorBadURL` (-1000): it
/// compares its own reading of the host (`::1`) with curl's (`[::1]`) and they differ
/// (swift-corelibs-foundation#5496, fixed after Swift 6.3). Names and IPv4 addresses keep using
/// `URLSession`. Each request opens its own connection (`Connection: close`) on a thread of its own,
/// within `timeout`; a cancelled task shuts the socket down. Failures are `URLError`s, as `URLSession`'s are.
enum IPv6LiteralTransport {
    /// The most of an answer that is read; the emulator's are a few kilobytes.
    static let maximumResponseBytes = 16 << 20

    /// Whether `url` names its host by an IPv6 address.
    static func handles(_ url: URL) -> Bool { url.host?.contains(":") == true }

    static func post(
        to url: URL, headers: [(String, String)], body: Data, timeout: Duration
    ) async throws -> (status: Int, body: Data) {
        let request = try Request(url: url, headers: headers, body: body)
        let socket = try Socket()
        let deadline = ContinuousClock.now + timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread {
                    defer { socket.close() }
                    continuation.resume(with: Result { try request.exchange(over: socket, until: deadline) })
                }.start()
            }
        } onCancel: {
            socket.shutDown()
        }
    }

    private struct Request {
        let address: sockaddr_in6
        let bytes: [UInt8]

        init(url: URL, headers: [(String, String)], body: Data) throws {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), var host = components.host,
                let port = components.port
            else { throw URLError(.badURL) }
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw URLError(.badURL) }
            self.address = address
            let target = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            var head = "POST \(target.isEmpty ? "/" : target) HTTP/1.1\r\nHost: [\(host)]:\(port)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            bytes = Array(head.utf8) + Array(body)
        }

        func exchange(over socket: Socket, until deadline: ContinuousClock.Instant) throws -> (status: Int, body: Data) {
            try socket.connect(to: address, until: deadline)
            try socket.send(bytes, until: deadline)
            return try Response.parse(try socket.receiveAll(until: deadline, limit: IPv6LiteralTransport.maximumResponseBytes))
        }
    }

    /// A non-blocking IPv6 TCP socket whose every wait is bounded by a deadline.
    private final class Socket: Sendable {
        private struct State {
            var closed = false
            var cancelled = false
        }

        private let fd: Int32
        private let state = Mutex(State())

        init() throws {
            fd = Glibc.socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw Self.failure(.cannotConnectToHost, errno) }
        }

        /// Wakes a thread waiting on the socket; it then fails as cancelled.
        func shutDown() {
            state.withLock { state in
                state.cancelled = true
                if !state.closed { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }

        func close() {
            state.withLock { state in
                state.closed = true
                _ = Glibc.close(fd)
            }
        }

        private func checkCancelled() throws {
            if state.withLock({ $0.cancelled }) { throw URLError(.cancelled) }
        }

        func connect(to address: sockaddr_in6, until deadline: ContinuousClock.Instant) throws {
            try checkCancelled()
            var address = address
            let started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
            if started == 0 { return }
            guard errno == EINPROGRESS else { throw Self.failure(.cannotConnectToHost, errno) }
            try wait(for: Int16(POLLOUT), until: deadline)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { throw Self.failure(.cannotConnectToHost, error) }
        }

        func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                    try wait(for: Int16(POLLOUT), until: deadline)
                } else {
                    throw Self.failure(.networkConnectionLost, errno)
                }
            }
        }

        func receiveAll(until deadline: ContinuousClock.Instant, limit: Int) throws -> [UInt8] {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received += buffer[..<count]
                    guard received.count <= limit else { throw URLError(.dataLengthExceedsMaximum) }
                } else if count == 0 {
                    try checkCancelled()
                    return received
                } else if errno == EAGAIN || errno == EINTR {
                    try wait(for: Int16(POLLIN), until: deadline)
                } else {
                    throw Self.failure(.networkConnectionLost, errno)
                }
            }
        }

        /// Waits until the socket is ready for `events`, or throws `timedOut` at the deadline.
        private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws {
            while true {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw URLError(.timedOut) }
                var entry = pollfd(fd: fd, events: events, revents: 0)
                let milliseconds = Int32(clamping: max(1, Int64(remaining.inMilliseconds)))
                let ready = poll(&entry, 1, milliseconds)
                try checkCancelled()
                if ready > 0 { return }
                if ready < 0 && errno != EINTR { throw Self.failure(.networkConnectionLost, errno) }
            }
        }

        private static func failure(_ code: URLError.Code, _ number: Int32) -> URLError {
            URLError(code, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(number))])
        }
    }

    /// The status and body of an HTTP/1.1 answer read to the end of the connection.
    enum Response {
        static func parse(_ bytes: [UInt8]) throws -> (status: Int, body: Data) {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let end = bytes.firstRange(of: separator) else { throw URLError(.badServerResponse) }
            let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
            let statusWords = head.first?.split(separator: " ") ?? []
            guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
                throw URLError(.badServerResponse)
            }
            var fields: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let rest = Array(bytes[end.upperBound...])
            if fields["transfer-encoding"]?.lowercased().contains("chunked") == true {
                return (status, try dechunk(rest))
            }
            if let length = fields["content-length"].flatMap(Int.init) {
                guard length <= rest.count else { throw URLError(.networkConnectionLost) }
                return (status, Data(rest[..<length]))
            }
            return (status, Data(rest))
        }

        private static func dechunk(_ bytes: [UInt8]) throws -> Data {
            var body = Data()
            var index = 0
            let crlf: [UInt8] = [13, 10]
            while true {
                guard let lineEnd = bytes[index...].firstRange(of: crlf) else { throw URLError(.networkConnectionLost) }
                let sizeField = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                    throw URLError(.badServerResponse)
                }
                index = lineEnd.upperBound
                if size == 0 { return body }
                guard bytes.count - index >= size + 2 else { throw URLError(.networkConnectionLost) }
                body.append(contentsOf: bytes[index..<(index + size)])
                index += size + 2
            }
        }
    }
}
