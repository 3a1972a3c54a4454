import Foundation
import SystemSupport
@testable import KeyringAuth
import KeyringTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP transport itself (libcurl, loaded at the first request) against servers on loopback
/// that misbehave as the emulator never does: an untrusted certificate, no answer.
@Suite struct CurlTransportTests {
    /// A TCP socket on 127.0.0.1 that accepts connections and never answers, so a client connects, sends, and
    /// waits; `connections` gets one event per connection accepted, `closes` the moment each is closed by the client.
    private final class SilentServer {
        let fd: Int32
        let port: Int
        let connections = Mailbox<Void>()
        let closes = Mailbox<ContinuousClock.Instant>()
        private let held = Held()

        /// The connections still open (each closed by its reader once the client closes it, or by `deinit`).
        private final class Held: Sendable {
            let fds = Mutex<Set<Int32>>([])
            let count = Atomic(0)
        }

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw CocoaError(.fileWriteUnknown) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            self.port = Int(UInt16(bigEndian: address.sin_port))
            let (connections, closes, held) = (connections, closes, held)
            try OwnThread.detach(name: "silent-accept") {
                while true {
                    let connection = accept(fd, nil, nil)
                    guard connection >= 0 else { return }
                    held.fds.withLock { _ = $0.insert(connection) }
                    held.count.add(1, ordering: .sequentiallyConsistent)
                    connections.post(())
                    // Reads (and drops) the request until the client closes the connection, and notes when.
                    try? OwnThread.detach(name: "silent-read") {
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        while recv(connection, &buffer, buffer.count, 0) > 0 {}
                        let closed = ContinuousClock.now
                        held.fds.withLock { fds in if fds.remove(connection) != nil { close(connection) } }
                        closes.post(closed)
                    }
                }
            }
        }

        /// How many connections were accepted so far.
        var accepted: Int { held.count.load(ordering: .sequentiallyConsistent) }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            // Their readers see the end and close them.
            held.fds.withLock { $0.forEach { shutdown($0, Int32(SHUT_RDWR)) } }
        }
    }

    /// Public-only (the broker's requests to hosts its callers name): every address of this machine or a private
    /// network is refused at the connection, also when a name resolves to it, and a server there gets no connection.
    @Test func aPublicOnlyRequestReachesNoLocalOrPrivateAddress() async throws {
        let server = try SilentServer()
        let transport = CurlTransport(addresses: .publicOnly)
        let refused: [(host: String, why: String)] = [
            ("127.0.0.1:\(server.port)", "loopback"), ("localhost:\(server.port)", "loopback"), ("0.0.0.0:\(server.port)", "not a unicast"),
            ("[::ffff:127.0.0.1]:\(server.port)", "loopback"), ("[::1]:\(server.port)", "loopback"), ("10.1.2.3", "private"),
            ("172.16.0.1", "private"), ("172.31.255.1", "private"), ("192.168.1.1", "private"), ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared"), ("224.0.0.1", "not a unicast"), ("[fd00::1]", "private"), ("[fe80::1]", "link-local"),
            ("[::ffff:10.0.0.1]", "private"),
        ]
        for (host, why) in refused {
            do {
                _ = try await transport.get(from: URL(string: "http://\(host)/.well-known/openid-configuration")!, headers: [], timeout: .seconds(30))
                Issue.record("\(host) was reached")
            } catch {
                #expect(error.kind == .refusedAddress, "\(host): \(error)")
                #expect(error.message.contains(why) && error.message.contains("only public addresses"), "\(host): \(error.message)")
            }
        }
        // Public addresses pass the check (these documentation ranges lead nowhere: no answer, or no route).
        for host in ["192.0.2.1", "172.32.0.1", "[2001:db8::1]"] {
            do {
                _ = try await transport.get(from: URL(string: "http://\(host)/")!, headers: [], timeout: .milliseconds(500))
            } catch {
                #expect(error.kind != .refusedAddress, "\(host): \(error)")
            }
        }
        // The server got no connection: the first it accepts is this one, made with any address allowed.
        let port = server.port
        let reaching = Task { _ = try? await CurlTransport().get(from: URL(string: "http://127.0.0.1:\(port)/")!, headers: [], timeout: .seconds(60)) }
        defer { reaching.cancel() }
        _ = try await server.connections.next(within: .seconds(60))
        #expect(server.accepted == 1)
    }

    @Test func aRequestThatGetsNoAnswerEndsAtItsTimeLimit() async throws {
        let server = try SilentServer()
        let started = ContinuousClock.now
        do {
            _ = try await CurlTransport().post(
                to: URL(string: "http://127.0.0.1:\(server.port)/v1/accounts:signUp")!, headers: [], body: Data("{}".utf8),
                timeout: .milliseconds(300))
            Issue.record("a silent server answered")
        } catch {
            #expect(error.kind == .timedOut, "\(error)")
        }
        // What an app relies on: a request with no answer ends, near its limit, instead of waiting for ever. Generous:
        // on a loaded machine the first request of a process also loads libcurl, and the test's tasks wait for a thread
        // of the cooperative pool (seen: 6.9 s with two CPU hogs, two keyring suites and a build beside).
        #expect(ContinuousClock.now - started < .seconds(30), "a request with no answer ends near its 300 ms limit")
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        let server = try SilentServer()
        let request = Task {
            try await CurlTransport().post(
                to: URL(string: "http://127.0.0.1:\(server.port)/")!, headers: [], body: Data(), timeout: .seconds(60))
        }
        // Cancelled once the server holds the request's connection: libcurl is loaded and the request under way.
        _ = try await server.connections.next(within: .seconds(60))
        let cancelled = ContinuousClock.now
        request.cancel()
        // What an app relies on: the request ends long before its own 60 s limit. Measured where it ends, at the server,
        // which sees the connection closed by libcurl's own thread (libcurl notices within a second: its progress
        // callback runs at least once a second while it waits), not through the test's tasks and the cooperative pool.
        let closed = try await server.closes.next(within: .seconds(60))
        #expect(closed - cancelled < .seconds(10), "a cancelled request ends long before its 60 s limit")
        do {
            _ = try await request.value
            Issue.record("a silent server answered")
        } catch let error as HTTPTransportError {
            #expect(error.kind == .cancelled, "\(error)")
        }
    }

    /// TLS verification is on: a server whose certificate nobody signed is refused.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs openssl to make a certificate"))
    func anUntrustedCertificateIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        // Both programs are waited for off the cooperative pool (Subprocess, LineChannel): a key made under load
        // takes seconds, which would hold one of the pool's threads from every other test.
        let openssl = try await Subprocess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-keyout", key, "-out", certificate,
        ])
        try #require(openssl.status == 0, "\(openssl.standardError)")

        // One HTTPS answer from Python's server (Debian's python3), on a port it picks and prints.
        let server = try LineChannel(["/usr/bin/env", "python3", "-c", """
            import http.server, ssl, sys
            class Answer(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"{}")
                def log_message(self, *args): pass
            httpd = http.server.HTTPServer(("127.0.0.1", 0), Answer)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
            print(httpd.server_address[1], flush=True)
            httpd.timeout = 10
            httpd.handle_request()
            """, certificate, key])
        let port = try #require(Int(try await server.nextLine(within: .seconds(60)).trimmingCharacters(in: .whitespaces)))

        do {
            _ = try await CurlTransport().post(
                to: URL(string: "https://127.0.0.1:\(port)/")!, headers: [], body: Data("{}".utf8), timeout: .seconds(10))
            Issue.record("a certificate nobody signed was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
        }
    }
}
