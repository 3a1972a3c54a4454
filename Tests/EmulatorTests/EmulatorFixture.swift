import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging
import KeyringTestSupport
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
        requestTimeout: Duration = .seconds(10), onVerificationCode: (@Sendable (AuthEmulator.VerificationCode) -> Void)? = nil,
        recaptcha: AuthEmulator.StandInRecaptcha? = nil
    ) async throws -> EmulatorFixture {
        let emulator = AuthEmulator(configuration: .init(
            port: 0, tokenLifetime: tokenLifetime, settings: settings, logger: quietLogger, onVerificationCode: onVerificationCode,
            recaptcha: recaptcha))
        let address = try await emulator.start()
        let backend = IdentityToolkitBackend(
            apiKey: apiKey, endpoint: try .emulator(host: address.host, port: address.port), requestTimeout: requestTimeout)
        return EmulatorFixture(emulator: emulator, address: address, backend: backend)
    }

    /// Runs `body` with an emulator of its own (``start(tokenLifetime:settings:apiKey:requestTimeout:)``), which is
    /// stopped, and waited for, when `body` returns or throws.
    static func with<Result>(_ body: (EmulatorFixture) async throws -> Result) async throws -> Result {
        let fixture = try await start()
        let result: Result
        do {
            result = try await body(fixture)
        } catch {
            await fixture.emulator.stop()
            throw error
        }
        await fixture.emulator.stop()
        return result
    }

    /// An ``Auth`` over an in-memory store whose backend is this emulator, as `useEmulator` sets it up.
    func auth(appName: String = "emulated-app", store: any KeychainStore = InMemoryStore()) throws -> Auth {
        let options = AuthAppOptions(appName: appName, apiKey: backend.apiKey, appID: "1:42:linux:\(appName)", projectID: "demo-keyring-auth")
        let auth = Auth(configuration: AuthConfiguration(options: options, store: store))
        auth.useEmulator(withHost: address.host, port: address.port)
        return auth
    }

    /// A `GET` straight to the server: its status and JSON reply.
    func get(_ path: String) async throws -> (Int, [String: Any]) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://\(address)\(path)")!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }

    /// Sends raw bytes over a new TCP connection and returns what comes back until the server closes.
    func rawExchange(_ bytes: [UInt8]) throws -> Data {
        try RawTCP.exchange(host: address.host, port: address.port, bytes: bytes)
    }

    /// One request straight to the server, as a client other than ours would send it.
    /// `bearer` is sent as `Authorization: Bearer …` (the Admin API's `owner`).
    func post(_ path: String, body: String, contentType: String = "application/json", bearer: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://\(address)\(path)")!)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
