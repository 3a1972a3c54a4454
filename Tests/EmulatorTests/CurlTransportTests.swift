import Foundation
import SystemSupport
@testable import KeyringAuth
import KeyringTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP transport itself (libcurl, loaded at the first request) against servers on this machine
/// that misbehave as the emulator never does: an untrusted certificate, no answer; and the addresses it refuses.
@Suite struct CurlTransportTests {
    /// A TCP socket on 127.0.0.1 (or another address of this machine) that accepts connections and never answers, so a
    /// client connects, sends, and waits; `connections` gets one event per connection accepted, `closes` the moment each
    /// is closed by the client.
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

        /// Listens on `host`, a numeric IPv4 or IPv6 address, at a port the system picks.
        init(host: String = "127.0.0.1") throws {
            var hints = addrinfo()
            hints.ai_flags = AI_NUMERICHOST
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var found: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, "0", &hints, &found) == 0, let address = found?.pointee else { throw CocoaError(.fileWriteUnknown) }
            defer { freeaddrinfo(found) }
            let fd = socket(address.ai_family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
            guard bind(fd, address.ai_addr, address.ai_addrlen) == 0, listen(fd, 8) == 0 else {
                close(fd)
                throw CocoaError(.fileWriteUnknown)
            }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            let port = withUnsafePointer(to: &bound) { storage in
                address.ai_family == AF_INET6
                    ? storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                    : storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
            }
            self.fd = fd
            self.port = Int(UInt16(bigEndian: port))
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
    /// network, and every special-purpose block that is not globally reachable (RFC 6890), is refused at the connection,
    /// also when a name resolves to it or an IPv6 form embeds it, and a server there gets no connection.
    @Test func aPublicOnlyRequestReachesNoLocalPrivateOrSpecialAddress() async throws {
        let server = try SilentServer()
        let transport = CurlTransport(addresses: .publicOnly)
        let port = server.port
        let refused: [(host: String, why: String)] = [
            ("127.0.0.1:\(port)", "loopback"), ("localhost:\(port)", "loopback"), ("0.0.0.0:\(port)", "not a unicast"),
            ("10.1.2.3", "private"), ("100.64.0.1", "shared"), ("169.254.169.254", "link-local"), ("172.16.0.1", "private"),
            ("172.31.255.1", "private"), ("192.0.0.8", "reserved for protocols"), ("192.0.2.1", "for documentation (192.0.2.0/24)"),
            ("192.31.196.1", "AS112"), ("192.52.193.1", "AMT relay"), ("192.88.99.1", "6to4 relay"), ("192.168.1.1", "private"),
            ("192.175.48.1", "AS112"), ("198.18.0.1", "for benchmarking"), ("198.19.255.254", "for benchmarking"),
            ("198.51.100.1", "for documentation"), ("203.0.113.1", "for documentation"), ("224.0.0.1", "multicast"),
            ("240.0.0.1", "reserved"), ("255.255.255.255", "limited broadcast"),
            ("[::]:\(port)", "unspecified"), ("[::1]:\(port)", "loopback"), ("[::ffff:127.0.0.1]:\(port)", "IPv4-mapped form of 127.0.0.1, which is loopback"),
            ("[::ffff:10.0.0.1]", "IPv4-mapped form of 10.0.0.1, which is private"),
            ("[64:ff9b::7f00:1]:\(port)", "NAT64 form of 127.0.0.1, which is loopback"),
            ("[64:ff9b::a00:1]", "NAT64 form of 10.0.0.1, which is private"), ("[64:ff9b:1::1]", "local-use NAT64"),
            ("[100::1]", "discard-only"), ("[2001::1]", "Teredo"), ("[2001:2::1]", "for benchmarking"),
            ("[2001:20::1]", "reserved for protocols"), ("[2001:db8::1]", "for documentation"),
            ("[2002:7f00:1::1]:\(port)", "6to4 form of 127.0.0.1, which is loopback"),
            ("[2002:c0a8:0101::1]", "6to4 form of 192.168.1.1, which is private"), ("[2620:4f:8000::1]", "AS112"),
            ("[3fff::1]", "for documentation"), ("[5f00::1]", "not a global unicast"), ("[fd00::1]", "private"),
            ("[fe80::1]", "link-local"), ("[fec0::1]", "site-local"), ("[ff02::1]", "multicast"),
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
        // Public addresses pass the check, also in the forms that embed one (172.32.0.1, just past 172.16/12, and the old
        // 6bone's 3ffe::/16 lead nowhere the test needs: no answer, or no route, within the half second).
        for host in ["172.32.0.1", "100.128.0.1", "[64:ff9b::ac20:1]", "[2002:ac20:1::1]", "[3ffe::1]"] {
            do {
                _ = try await transport.get(from: URL(string: "http://\(host)/")!, headers: [], timeout: .milliseconds(500))
            } catch {
                #expect(error.kind != .refusedAddress, "\(host): \(error)")
            }
        }
        // The server got no connection: the first it accepts is this one, made with any address allowed.
        let reaching = Task { _ = try? await CurlTransport().get(from: URL(string: "http://127.0.0.1:\(port)/")!, headers: [], timeout: .seconds(60)) }
        defer { reaching.cancel() }
        _ = try await server.connections.next(within: .seconds(60))
        #expect(server.accepted == 1)
    }

    /// This machine's first non-loopback IPv4 address and its first IPv6 one that is not link-local (which a URL would
    /// need with its interface), as `getifaddrs` lists them.
    static let ownAddresses: [String] = {
        var interfaces: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&interfaces) == 0 else { return [] }
        defer { freeifaddrs(interfaces) }
        var byFamily: [Int32: String] = [:]
        var next = interfaces
        while let entry = next?.pointee {
            next = entry.ifa_next
            guard let address = entry.ifa_addr, entry.ifa_flags & UInt32(IFF_LOOPBACK) == 0, entry.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6, byFamily[family] == nil else { continue }
            let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(length), &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if family == AF_INET6, host.lowercased().hasPrefix("fe80") { continue }
            byFamily[family] = host
        }
        return [AF_INET, AF_INET6].compactMap { byFamily[$0] }
    }()

    /// Whether libcurl sends a plain-HTTP request to a host that is not loopback straight to it (no proxy variable set).
    static let noProxy = ["http_proxy", "all_proxy", "ALL_PROXY"].allSatisfy { ProcessInfo.processInfo.environment[$0]?.isEmpty ?? true }

    /// Public-only refuses an address of this machine's own interfaces though a server listens there (and tells it as
    /// this machine's own, whatever block it is in); the same request with any address allowed reaches that server.
    /// Nothing leaves this machine.
    @Test(
        .enabled(if: !CurlTransportTests.ownAddresses.isEmpty, "this machine has no address but loopback and link-local ones to listen on"),
        .enabled(if: CurlTransportTests.noProxy, "a proxy is set (http_proxy, ALL_PROXY): a request to this machine's address would go through it"))
    func aPublicOnlyRequestReachesNoAddressOfThisMachine() async throws {
        for address in Self.ownAddresses {
            let server = try SilentServer(host: address)
            let url = URL(string: "http://\(address.contains(":") ? "[\(address)]" : address):\(server.port)/.well-known/openid-configuration")!
            do {
                _ = try await CurlTransport(addresses: .publicOnly).get(from: url, headers: [], timeout: .seconds(30))
                Issue.record("\(url) was reached")
            } catch {
                #expect(error.kind == .refusedAddress, "\(url): \(error)")
                #expect(error.message.contains("is this machine's own (interface "), "\(url): \(error.message)")
            }
            // The server got no connection: the first it accepts is this one, made with any address allowed.
            let reaching = Task { _ = try? await CurlTransport().get(from: url, headers: [], timeout: .seconds(60)) }
            defer { reaching.cancel() }
            _ = try await server.connections.next(within: .seconds(60))
            #expect(server.accepted == 1, "\(url)")
        }
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
