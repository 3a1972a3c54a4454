import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What keeps an emulator that trusts every caller to this machine, and keeps it answering:
/// loopback only unless opted in, idle connections closed, a bounded number of connections.
@Suite struct EmulatorExposureTests {
    private static let answeredRequest = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)

    @Test(arguments: ["0.0.0.0", "::", "[::]"])
    func anAddressOtherThanLoopbackIsRefusedWithTheOptIn(host: String) async throws {
        let emulator = AuthEmulator(configuration: .init(host: host, port: 0, logger: EmulatorFixture.quietLogger))
        do {
            try await emulator.start()
            Issue.record("\(host) was listened on")
            await emulator.stop()
        } catch {
            guard case .notLoopback = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("allowsNonLoopback") && !error.description.contains("--"), "library terms; the CLI adds its flag")
        }
    }

    @Test func loopbackAddressesAndNamesThatResolveToThemAreAccepted() async throws {
        var hosts = ["127.0.0.1", "127.0.0.2", "localhost"]
        if IPv6Loopback.isBindable { hosts += ["::1", "[::1]", "::ffff:127.0.0.1"] }
        for host in hosts {
            let emulator = AuthEmulator(configuration: .init(host: host, port: 0, logger: EmulatorFixture.quietLogger))
            await #expect(throws: Never.self, "\(host)") { try await emulator.start() }
            await emulator.stop()
        }
    }

    @Test func theOptInListensAndWarnsOnce() async throws {
        let log = LogRecorder()
        let emulator = AuthEmulator(configuration: .init(host: "0.0.0.0", port: 0, logger: log.logger, allowsNonLoopback: true))
        let address = try await emulator.start()
        let warnings = log.messages(at: .warning)
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.contains("not loopback") && warning.contains("any API key") && warning.contains("delete-all"))
        #expect(!String(decoding: try RawTCP.exchange(host: "127.0.0.1", port: address.port, bytes: Self.answeredRequest), as: UTF8.self)
            .isEmpty, "it serves")
        await emulator.stop()

        let loopback = LogRecorder()
        let quiet = AuthEmulator(configuration: .init(port: 0, logger: loopback.logger, allowsNonLoopback: true))
        try await quiet.start()
        #expect(loopback.messages(at: .warning).isEmpty, "no warning when the address is loopback anyway")
        await quiet.stop()
    }

    /// A raw request to `port` with `Host: host`, as a browser sends it for a page whose name resolves to 127.0.0.1.
    private static func request(_ method: String, _ path: String, host: String, port: Int) throws -> String {
        let body = method == "POST" ? "{}" : ""
        let request = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return String(decoding: try RawTCP.exchange(host: "127.0.0.1", port: port, bytes: Array(request.utf8)), as: UTF8.self)
    }

    @Test func requestsAddressedToAnotherNameAreRefusedSoDNSRebindingReachesNothing() async throws {
        let fixture = try await EmulatorFixture.start()
        let port = fixture.address.port
        let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
        let codes = "/emulator/v1/projects/demo-keyring-auth/oobCodes"
        for host in ["rebind.evil.example:\(port)", "rebind.evil.example", "127.0.0.1.evil.example", "localhost.evil.example:\(port)", "[::2]:\(port)"] {
            let answer = try Self.request("POST", signUp, host: host, port: port)
            #expect(answer.hasPrefix("HTTP/1.1 403") && answer.contains("PERMISSION_DENIED"), "\(host): \(answer)")
            #expect(try Self.request("GET", codes, host: host, port: port).hasPrefix("HTTP/1.1 403"), "\(host): the codes are not listed")
        }
        #expect(fixture.emulator.accounts.isEmpty, "nothing was done for another name")
        let loopback = ["127.0.0.1:\(port)", "localhost:\(port)", "LocalHost", "[::1]:\(port)", "127.0.0.2"]
        for host in loopback {
            #expect(try Self.request("POST", signUp, host: host, port: port).hasPrefix("HTTP/1.1 200"), "\(host)")
        }
        #expect(try Self.request("GET", codes, host: "127.0.0.1:\(port)", port: port).hasPrefix("HTTP/1.1 200"))
        #expect(fixture.emulator.accounts.count == loopback.count)
    }

    @Test func withTheOptInTheConfiguredHostIsAnsweredToo() async throws {
        let emulator = AuthEmulator(configuration: .init(host: "0.0.0.0", port: 0, logger: EmulatorFixture.quietLogger, allowsNonLoopback: true))
        let port = try await emulator.start().port
        #expect(try Self.request("GET", "/", host: "0.0.0.0:\(port)", port: port).hasPrefix("HTTP/1.1 200"))
        #expect(try Self.request("GET", "/", host: "127.0.0.1:\(port)", port: port).hasPrefix("HTTP/1.1 200"))
        #expect(try Self.request("GET", "/", host: "rebind.evil.example:\(port)", port: port).hasPrefix("HTTP/1.1 403"))
        await emulator.stop()
    }

    @Test func aHostThatDoesNotResolveSaysSo() async throws {
        let emulator = AuthEmulator(configuration: .init(host: "does-not-resolve.invalid", port: 0, logger: EmulatorFixture.quietLogger))
        await #expect(throws: AuthEmulatorError.hostDoesNotResolve(host: "does-not-resolve.invalid")) { try await emulator.start() }
        let message = AuthEmulatorError.hostDoesNotResolve(host: "does-not-resolve.invalid").description
        #expect(message.contains("does not resolve") && message.contains("loopback") && !message.contains("port"))
    }

    @Test func anIdleConnectionIsClosed() async throws {
        let emulator = AuthEmulator(configuration: .init(port: 0, logger: EmulatorFixture.quietLogger, idleTimeout: .milliseconds(200)))
        let address = try await emulator.start()
        let fd = try RawTCP.connect(host: "127.0.0.1", port: address.port)
        defer { close(fd) }
        // Nothing is sent: the server closes the connection long before the socket's 10 s read limit.
        #expect(try RawTCP.readUntilClosed(fd).isEmpty)
        await emulator.stop()
    }

    @Test func connectionsOverTheLimitAreClosedAtOnceUntilSomeClose() async throws {
        let log = LogRecorder()
        let emulator = AuthEmulator(configuration: .init(port: 0, logger: log.logger, maximumConnections: 2))
        let port = try await emulator.start().port
        let first = try RawTCP.connect(host: "127.0.0.1", port: port)
        let second = try RawTCP.connect(host: "127.0.0.1", port: port)
        defer { close(second) }

        // Accepted in order: the third is closed without an answer, the first two stay open and answer.
        let third = try RawTCP.connect(host: "127.0.0.1", port: port)
        _ = Self.answeredRequest.withUnsafeBytes { send(third, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(try RawTCP.readUntilClosed(third).isEmpty)
        close(third)
        #expect(log.messages(at: .warning).count == 1 && log.messages(at: .warning)[0].contains("limit"))

        _ = Self.answeredRequest.withUnsafeBytes { send(first, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(String(decoding: try RawTCP.readUntilClosed(first), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        close(first)

        // Once the server has seen the first close, a new connection is served again.
        var answered = false
        for _ in 0..<500 where !answered {
            let reply = try RawTCP.exchange(host: "127.0.0.1", port: port, bytes: Self.answeredRequest)
            answered = String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200")
            if !answered { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(answered)
        await emulator.stop()
    }
}
