import Foundation
import SystemSupport

// App Check: the exchanges that issue tokens (an app's debug provider, a backend's custom tokens), and the check of Auth's
// calls where App Check is enforced.
extension EmulatorService {
    static let appCheckProjects = "/firebaseappcheck.googleapis.com/v1/projects/"
    static let maximumAppCheckExchanges = 1000
    /// The longest custom token an exchange takes (the Admin SDKs' are about 1 KiB).
    static let maximumCustomTokenBytes = 4096
    /// The lifetimes a custom token's `ttl` is kept within: Firebase's 30 minutes to 7 days.
    static let customTokenLifetimes: ClosedRange<Int64> = 1800...(7 * 24 * 3600)
    static let defaultCustomTokenLifetime: Int64 = 3600

    /// The apps' calls App Check protects when enforced on Auth, by their `v1` names (the `v3` ones are rewritten to these
    /// first): Identity Platform's list.
    static let appCheckProtectedOperations: Set<Substring> = [
        "createAuthUri", "sendVerificationCode", "signInWithCustomToken", "signInWithEmailLink", "signInWithIdp",
        "signInWithPassword", "signInWithPhoneNumber", "signUp", "delete", "lookup", "sendOobCode", "resetPassword", "update",
    ]

    /// App Check's methods the emulator does not offer (attestation by a platform or reCAPTCHA).
    private static let unofferedAppCheckMethods: Set<Substring> = [
        "exchangeAppAttestAssertion", "exchangeAppAttestAttestation", "exchangeDeviceCheckToken", "exchangePlayIntegrityToken",
        "exchangeRecaptchaEnterpriseToken", "exchangeRecaptchaV3Token", "exchangeSafetyNetToken", "generateAppAttestChallenge",
        "generatePlayIntegrityChallenge",
    ]

    /// Identity Platform's answer to a protected call without a valid token.
    static let invalidAppCheckToken = EmulatorFailure(
        "Firebase App Check token is invalid.", status: 401, grpcStatus: "UNAUTHENTICATED", listsErrors: false)
    private static let attestationFailed = EmulatorFailure("App attestation failed.", status: 403, grpcStatus: "PERMISSION_DENIED")
    private static let callerLacksPermission = EmulatorFailure(
        "The caller does not have permission. The emulator takes `Authorization: Bearer owner` for exchangeCustomToken.",
        status: 403, grpcStatus: "PERMISSION_DENIED")

    private static func invalidArgument(_ field: String) -> EmulatorFailure {
        EmulatorFailure("Request contains an invalid argument: '\(field)'.", status: 400, grpcStatus: "INVALID_ARGUMENT")
    }

    /// Refuses an app's call to `operation` without a valid token in `X-Firebase-AppCheck`, where App Check is enforced
    /// on Auth and protects it; an administrator's calls are never checked.
    func requireAppCheck(for operation: Substring, _ request: EmulatorRequest) throws(EmulatorFailure) {
        guard appCheck?.enforcesOnAuth == true, Self.appCheckProtectedOperations.contains(operation) else { return }
        guard appCheckApp(of: request) != nil else { throw Self.invalidAppCheckToken }
    }

    /// The app of the valid App Check token `request` carries in `X-Firebase-AppCheck`, if it carries one.
    func appCheckApp(of request: EmulatorRequest) -> String? {
        guard let token = request.headers["x-firebase-appcheck"] else { return nil }
        return appCheckTokens.verify(token, projectID: projectID, now: clock())?.appID
    }

    var appCheckExchanges: [AuthEmulator.AppCheckExchange] { state.withLock { $0.appCheckExchanges } }

    /// `/firebaseappcheck.googleapis.com/v1/projects/` then `{p}/apps/{appId}:exchangeDebugToken` or `…:exchangeCustomToken`.
    func routeAppCheck(_ request: EmulatorRequest, _ rest: Substring) throws(EmulatorFailure) -> EmulatorResponse {
        let project = rest.prefix { $0 != "/" }
        let app = rest.dropFirst(project.count)
        guard app.hasPrefix("/apps/"), let colon = app.lastIndex(of: ":") else { throw EmulatorFailure.notFound(request) }
        let appID = app[app.index(app.startIndex, offsetBy: "/apps/".count)..<colon]
        let name = app[app.index(after: colon)...]
        let method: AuthEmulator.AppCheckExchange.Method
        switch name {
        case "exchangeDebugToken": method = .exchangeDebugToken
        case "exchangeCustomToken": method = .exchangeCustomToken
        case _ where Self.unofferedAppCheckMethods.contains(name):
            throw EmulatorFailure.notImplemented("The emulator exchanges App Check's debug tokens and custom tokens only, not \(name).")
        default: throw EmulatorFailure.notFound(request)
        }
        guard request.method == "POST" else { throw EmulatorFailure.methodNotAllowed(request) }
        try checkProject(project)
        guard AppCheckTokens.isAppID(appID) else { throw Self.invalidArgument("app_id") }
        return try exchange(method, request, appID: String(appID))
    }

    /// An exchange, kept in ``appCheckExchanges`` whether or not it issues a token: `{"token", "ttl"}`.
    private func exchange(_ method: AuthEmulator.AppCheckExchange.Method, _ request: EmulatorRequest, appID: String) throws(EmulatorFailure)
        -> EmulatorResponse
    {
        var record = AuthEmulator.AppCheckExchange(method: method, appID: appID, limitedUse: false, issued: false)
        defer {
            state.withLock { state in
                state.appCheckExchanges.append(record)
                if state.appCheckExchanges.count > Self.maximumAppCheckExchanges { state.appCheckExchanges.removeFirst() }
            }
        }
        let lifetime = switch method {
        case .exchangeDebugToken: try debugTokenLifetime(request, &record)
        case .exchangeCustomToken: try customTokenLifetime(request, &record)
        }
        record.issued = true
        let now = Int64(clock().timeIntervalSince1970.rounded(.down))
        let token = appCheckTokens.issue(appID: appID, projectID: projectID, issuedAt: now, lifetime: lifetime, limitedUse: record.limitedUse)
        return .json(["token": token, "ttl": ProtobufDuration.text(seconds: lifetime)])
    }

    /// An app's debug provider: its API key and a registered debug token (`debugToken`) → the configured lifetime.
    private func debugTokenLifetime(_ request: EmulatorRequest, _ record: inout AuthEmulator.AppCheckExchange) throws(EmulatorFailure) -> Int64 {
        guard request.apiKey != nil else { throw Self.missingAPIKey }
        let fields = try request.fields()
        record.limitedUse = try fields.bool("limitedUse", or: "limited_use") ?? false
        guard let secret = try fields.string("debugToken", or: "debug_token"), !secret.isEmpty,
            secret.utf8.count <= AuthEmulator.AppCheckSettings.maximumDebugTokenBytes
        else { throw Self.invalidArgument("debug_token") }
        guard let appCheck, appCheck.debugTokens.contains(secret) else { throw Self.attestationFailed }
        return max(1, appCheck.tokenLifetime.components.seconds)
    }

    /// A backend's Admin SDK, standing in for Google's check of its signature: an administrator's non-empty
    /// `customToken` → its `ttl` (the body's, else the claim the Admin SDKs put in the token) within 30 minutes to 7 days.
    private func customTokenLifetime(_ request: EmulatorRequest, _ record: inout AuthEmulator.AppCheckExchange) throws(EmulatorFailure) -> Int64 {
        guard try caller(of: request) == .admin else { throw Self.callerLacksPermission }
        let fields = try request.fields()
        record.limitedUse = try fields.bool("limitedUse", or: "limited_use") ?? false
        guard let token = try fields.string("customToken", or: "custom_token"), !token.isEmpty,
            token.utf8.count <= Self.maximumCustomTokenBytes
        else { throw Self.invalidArgument("custom_token") }
        guard let ttl = try fields.string("ttl") ?? Self.ttlClaim(ofCustomToken: token) else { return Self.defaultCustomTokenLifetime }
        guard let seconds = ProtobufDuration.seconds(ttl) else { throw Self.invalidArgument("ttl") }
        return min(max(seconds, Self.customTokenLifetimes.lowerBound), Self.customTokenLifetimes.upperBound)
    }

    /// The `ttl` claim of a custom token that is a JWT with one (the Admin SDKs' `createToken(appId, {ttlMillis})`).
    private static func ttlClaim(ofCustomToken token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
            let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
        else { return nil }
        return claims["ttl"] as? String
    }
}

extension RequestFields {
    /// A string field by either of its names (protocol buffers' JSON takes `debugToken` and `debug_token`).
    fileprivate func string(_ name: String, or other: String) throws(EmulatorFailure) -> String? {
        if let value = try string(name) { return value }
        return try string(other)
    }

    fileprivate func bool(_ name: String, or other: String) throws(EmulatorFailure) -> Bool? {
        if let value = try bool(name) { return value }
        return try bool(other)
    }
}
