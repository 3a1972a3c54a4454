import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import SecretKeychain

/// An emulator of its own on a free loopback port, and a client pointed at it.
struct EmulatorFixture {
    let emulator: AuthEmulator
    let address: AuthEmulator.Address
    let backend: IdentityToolkitBackend

    /// Warnings only: the tests' output stays readable.
    static let quietLogger: Logger = {
        var logger = Logger(label: "EmulatorTests")
        logger.logLevel = .warning
        return logger
    }()

    static func start(
        tokenLifetime: Duration = .seconds(3600), settings: AuthEmulator.Settings = .init(), apiKey: String = "AIzaEmulatorKey",
        requestTimeout: Duration = .seconds(10)
    ) async throws -> EmulatorFixture {
        let emulator = AuthEmulator(configuration: .init(port: 0, tokenLifetime: tokenLifetime, settings: settings, logger: quietLogger))
        let address = try await emulator.start()
        let backend = IdentityToolkitBackend(
            apiKey: apiKey, endpoint: try .emulator(host: address.host, port: address.port), requestTimeout: requestTimeout)
        return EmulatorFixture(emulator: emulator, address: address, backend: backend)
    }

    /// An ``Auth`` over an in-memory store whose backend is this emulator, as `useEmulator` sets it up.
    func auth(appName: String = "emulated-app", store: any KeychainStore = InMemoryStore()) throws -> Auth {
        let options = AuthAppOptions(appName: appName, apiKey: backend.apiKey, appID: "1:42:linux:\(appName)", projectID: "demo-keyring-auth")
        let auth = Auth(configuration: AuthConfiguration(options: options, store: store))
        try auth.useEmulator(withHost: address.host, port: address.port)
        return auth
    }

    /// Sends raw bytes over a new TCP connection and returns what comes back until the server closes.
    func rawExchange(_ bytes: [UInt8]) throws -> Data {
        try RawTCP.exchange(host: address.host, port: address.port, bytes: bytes)
    }

    /// One request straight to the server, as a client other than ours would send it.
    func post(_ path: String, body: String, contentType: String = "application/json") async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://\(address)\(path)")!)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain POSIX sockets, to send what no HTTP client would.
enum RawTCP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func exchange(host: String, port: Int, bytes: [UInt8]) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(errno)") }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }

    /// A socket that listens but never accepts: connections succeed and then nothing is answered.
    static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "listen: \(errno)") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
