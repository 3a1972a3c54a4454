import Foundation

/// One exchange at Firebase's App Check service (`firebaseappcheck.googleapis.com/v1`), or at the bundled emulator,
/// which serves the same paths: a secret of the app's for a token.
struct AppCheckExchange: Sendable {
    /// `https://firebaseappcheck.googleapis.com/v1/`, or the emulator's `http://HOST:PORT/firebaseappcheck.googleapis.com/v1/`.
    var base: URL
    let apiKey: String
    let projectID: String
    let appID: String
    let timeout: Duration
    let transport: any HTTPTransport

    static let production = URL(string: "https://firebaseappcheck.googleapis.com/v1/")!

    /// The base for `environment`: the emulator `FIREBASE_AUTH_EMULATOR_HOST` names (it stands in for App Check too),
    /// or Firebase's service.
    static func base(environment: [String: String]) -> URL {
        (try? IdentityToolkitEndpoint.fromEnvironment(environment)).map(base(endpoint:)) ?? production
    }

    /// The base for the identity service `endpoint`: its emulator's, or Firebase's service.
    static func base(endpoint: IdentityToolkitEndpoint) -> URL {
        guard let host = endpoint.emulatorHost, let url = URL(string: "http://\(host)/firebaseappcheck.googleapis.com/v1/") else {
            return production
        }
        return url
    }

    /// The longest answer read.
    static let maximumAnswer = 64 * 1024

    /// Exchanges a debug secret (`:exchangeDebugToken`, its body as Firebase's SDKs send it). The secret goes in the
    /// body only, and into no message.
    func exchange(debugToken: String, limitedUse: Bool) async throws(AppCheckError) -> AppCheckToken {
        let body = try! JSONSerialization.data(withJSONObject: ["debug_token": debugToken, "limited_use": limitedUse], options: [.sortedKeys])
        return try await post("exchangeDebugToken", body: body)
    }

    private func post(_ method: String, body: Data) async throws(AppCheckError) -> AppCheckToken {
        guard Self.isPathSafe(projectID), Self.isPathSafe(appID),
            let url = URL(string: "projects/\(projectID)/apps/\(appID):\(method)", relativeTo: base)?.absoluteURL
        else {
            throw AppCheckError(.invalidConfiguration,
                "The app's projectID or googleAppID has characters no Firebase ID has; check the app's GoogleService-Info.plist.")
        }
        let answer: HTTPAnswer
        do {
            answer = try await transport.post(
                to: url, headers: [("Content-Type", "application/json"), ("Accept", "application/json"), ("X-Goog-Api-Key", apiKey)],
                body: body, timeout: timeout)
        } catch {
            throw AppCheckError(.serverUnreachable, "Cannot reach App Check at \(url.host ?? "?") (\(error.message)); check the network.")
        }
        let received = Date()
        guard answer.status == 200 else { throw refusal(status: answer.status, body: answer.body) }
        return try Self.token(of: answer.body, receivedAt: received)
    }

    /// A token of an exchange's answer `{"token": …, "ttl": "3600s"}`, expiring `ttl` after `receivedAt`.
    static func token(of body: Data, receivedAt: Date) throws(AppCheckError) -> AppCheckToken {
        guard body.count <= maximumAnswer,
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let token = object["token"] as? String
        else { throw AppCheckError(.unknown, "App Check's answer has no token field; it cannot be read.") }
        guard let ttl = (object["ttl"] as? String).flatMap(duration), ttl > 0, ttl <= 7 * 24 * 3600 else {
            throw AppCheckError(.unknown, "App Check's answer has no ttl a token can have (a Duration such as \"3600s\", up to seven days).")
        }
        let made = AppCheckToken(token: token, expirationDate: receivedAt.addingTimeInterval(ttl), receivedAtDate: receivedAt)
        guard made.isSendable else { throw AppCheckError(.unknown, "App Check answered a token that cannot be sent in a header.") }
        return made
    }

    /// Seconds of a protobuf Duration in JSON (`"3600s"`, `"1.5s"`), or `nil`.
    static func duration(_ text: String) -> Double? {
        guard text.count <= 32, text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1
        else { return nil }
        return Double(number)
    }

    private func refusal(status: Int, body: Data) -> AppCheckError {
        let said = ((try? JSONSerialization.jsonObject(with: body.prefix(Self.maximumAnswer))) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }.flatMap { $0["message"] as? String }
            .map { " (\(String($0.prefix(200)).escapedForTerminal))" } ?? ""
        switch status {
        case 403:
            return AppCheckError(.unknown,
                "App Check refused the debug secret with HTTP 403\(said): register it for app \(appID) in the Firebase console "
                    + "(App Check, Apps, Manage debug tokens) or with `firebase appcheck:debugtokens:create`, or give a registered one.")
        case 400, 404:
            return AppCheckError(.invalidConfiguration,
                "App Check answered HTTP \(status)\(said): check that app \(appID) of project \(projectID) is registered with App Check.")
        case 429, 500...:
            return AppCheckError(.serverUnreachable, "App Check failed with HTTP \(status)\(said); it is tried again later.")
        default:
            return AppCheckError(.unknown, "App Check answered HTTP \(status)\(said).")
        }
    }

    private static func isPathSafe(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 200 && id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == ":" || $0 == "-" || $0 == "_" || $0 == "."
        }
    }
}
