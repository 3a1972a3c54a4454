import Foundation
import KeyringTestSupport
import Synchronization
import SystemSupport
import Testing

@testable import KeyringAuthEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An emulator with App Check on a free loopback port and a clock the test moves, driven over HTTP as an app, a backend
/// and an app's debug provider drive it.
struct AppCheckEmulator {
    static let debugToken = "6E4F1D2C-8B3A-4C5D-9E7F-0A1B2C3D4E5F"
    static let appID = "1:1234567890:linux:abcdef"
    static let project = "demo-keyring-auth"
    static let v1 = "/identitytoolkit.googleapis.com/v1/"
    static let exchangePrefix = "/firebaseappcheck.googleapis.com/v1/projects/"

    /// A clock the test moves, from now.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        func pass(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    let emulator: AuthEmulator
    let address: AuthEmulator.Address
    let clock: Clock

    /// A reply: its status, its JSON object (empty when it is none) and its bytes.
    struct Reply {
        var status: Int
        var object: [String: Any]
        var data: Data
        var error: [String: Any]? { object["error"] as? [String: Any] }
    }

    static func start(_ appCheck: AuthEmulator.AppCheckSettings?) async throws -> AppCheckEmulator {
        let clock = Clock()
        let emulator = AuthEmulator(
            configuration: .init(port: 0, logger: EmulatorFixture.quietLogger, appCheck: appCheck), clock: { clock.now.withLock { $0 } })
        return AppCheckEmulator(emulator: emulator, address: try await emulator.start(), clock: clock)
    }

    /// Enforced on Auth, with ``debugToken`` registered.
    static func enforcing(tokenLifetime: Duration = .seconds(3600)) async throws -> AppCheckEmulator {
        try await start(.init(enforcesOnAuth: true, debugTokens: [debugToken], tokenLifetime: tokenLifetime))
    }

    func stop() async { await emulator.stop() }

    /// One request: `body` is a JSON object, or text sent as it is.
    func send(_ path: String, _ body: Any? = nil, method: String = "POST", headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://\(address)\(path)")!)
        request.httpMethod = method
        if let text = body as? String {
            request.httpBody = Data(text.utf8)
        } else if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, object: object, data: data)
    }

    /// An app's call, `accounts:<operation>` with the API key, carrying `appCheckToken` when given.
    func call(_ operation: String, _ body: [String: Any] = [:], appCheckToken: String? = nil) async throws -> Reply {
        try await send(Self.v1 + "accounts:\(operation)?key=k", body, headers: appCheckToken.map { ["X-Firebase-AppCheck": $0] } ?? [:])
    }

    /// An administrator's call (`Authorization: Bearer owner`).
    func admin(_ path: String, _ body: [String: Any] = [:]) async throws -> Reply {
        try await send(path, body, headers: ["Authorization": "Bearer owner"])
    }

    /// `…/apps/<app>:exchangeDebugToken` of `project`, with the API key as a query parameter.
    func exchangeDebugToken(_ body: Any, app: String = appID, project: String = project, key: String? = "k") async throws -> Reply {
        try await send(Self.exchangePrefix + "\(project)/apps/\(app):exchangeDebugToken" + (key.map { "?key=\($0)" } ?? ""), body)
    }

    /// A token for ``debugToken``.
    func token(app: String = appID) async throws -> String {
        let reply = try await exchangeDebugToken(["debugToken": Self.debugToken], app: app)
        try #require(reply.status == 200, "\(reply.object)")
        return try #require(reply.object["token"] as? String)
    }

    /// The token's header and claims.
    static func decode(_ token: String) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3 && !parts[2].isEmpty)
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[1]))) as? [String: Any]
        return (try #require(header), try #require(claims))
    }

    /// Whether `reply` is Identity Platform's refusal for App Check, exactly:
    /// `{"error": {"code": 401, "message": "Firebase App Check token is invalid.", "status": "UNAUTHENTICATED"}}`.
    static func isAppCheckRefusal(_ reply: Reply) -> Bool {
        guard reply.status == 401, reply.object.count == 1, let error = reply.error, error.count == 3 else { return false }
        return error["code"] as? Int == 401 && error["message"] as? String == "Firebase App Check token is invalid."
            && error["status"] as? String == "UNAUTHENTICATED"
    }
}
