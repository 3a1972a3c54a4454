import Foundation
import Logging

// Sending a request and reading its answer or failure.
extension IdentityToolkitBackend {
    /// One `accounts:<method>` call. `tenant`: whether the method takes `tenantId` (sign-up, the sign-ins and
    /// `accounts:update`, as Firebase's SDKs send it); the others name the account by its ID token alone.
    func post<Reply: Decodable>(
        _ method: String, json: [String: (any Sendable)?], tenant: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        let url = try endpoint().accountsURL(method, apiKey: apiKey)
        var present = json.compactMapValues { $0 }
        if tenant, let tenantID = context.tenantID { present["tenantId"] = tenantID }
        // Strings, booleans and string arrays always serialize.
        let body = try! JSONSerialization.data(withJSONObject: present, options: [.sortedKeys])
        return try await send(url, operation: "accounts:\(method)", contentType: "application/json", body: body, context: context)
    }

    func send<Reply: Decodable>(
        _ url: URL, operation: String, contentType: String, body: Data, context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        let answer: HTTPAnswer
        do {
            let headers = [("Content-Type", contentType)] + (await commonHeaders(context))
            answer = try await transport.post(to: url, headers: headers, body: body, timeout: requestTimeout)
        } catch {
            logger.debug("\(operation) failed in transport", metadata: ["error": "\(error)"])
            throw transportError(error, host: url.host ?? "?")
        }
        logger.debug("\(operation) answered", metadata: ["status": "\(answer.status)", "bytes": "\(answer.body.count)"])
        return try IdentityToolkitReply.decode(Reply.self, status: answer.status, body: answer.body, operation: operation)
    }

    /// One GET of Identity Toolkit (`v2/passwordPolicy`): its answer of any status, for the caller to read.
    func get(_ url: URL, operation: String, context: AuthRequestContext) async throws(AuthError) -> HTTPAnswer {
        let answer: HTTPAnswer
        do {
            answer = try await transport.get(from: url, headers: await commonHeaders(context), timeout: requestTimeout)
        } catch {
            logger.debug("\(operation) failed in transport", metadata: ["error": "\(error)"])
            throw transportError(error, host: url.host ?? "?")
        }
        logger.debug("\(operation) answered", metadata: ["status": "\(answer.status)", "bytes": "\(answer.body.count)"])
        return answer
    }

    /// The headers of every request, as Firebase's SDKs send them: the client's version, the app's ID, the language,
    /// and the App Check token when the app has App Check.
    func commonHeaders(_ context: AuthRequestContext) async -> [(String, String)] {
        var headers = [("Accept", "application/json"), ("X-Client-Version", Self.clientVersion)]
        if let appID, AppCheckToken.isVisibleASCII(appID, upTo: 256) { headers.append(("X-Firebase-GMPID", appID)) }
        if let languageCode = context.languageCode.flatMap(Self.headerSafe) { headers.append(("X-Firebase-Locale", languageCode)) }
        if let appCheck = context.appCheck { headers.append(("X-Firebase-AppCheck", await appCheck.value())) }
        return headers
    }

    /// `X-Client-Version`, in the shape of Apple's SDK's (`iOS/FirebaseSDK/VERSION/FirebaseCore-iOS`).
    static let clientVersion = "Linux/KeyringAuth/\(KeyringAuthVersion.current)/FirebaseCore-Linux"


    /// A language code as a header value: letters, digits, `-` and `_` only, at most 35 characters (BCP 47's
    /// longest common tags); anything else is not sent, so that no value can split the request's headers.
    static func headerSafe(_ languageCode: String) -> String? {
        let allowed = languageCode.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        return allowed && !languageCode.isEmpty && languageCode.count <= 35 ? languageCode : nil
    }

    private func transportError(_ error: HTTPTransportError, host: String) -> AuthError {
        let target = (try? endpoint())?.description ?? host
        switch error.kind {
        case .timedOut:
            return AuthError(
                .networkError,
                "\(target) did not answer within \(requestTimeout); check the network or that the emulator is running.")
        case .cancelled:
            return AuthError(.networkError, "The request to \(target) was cancelled.")
        case .unavailable:
            return AuthError(.networkError, "Cannot reach \(target): \(error.message).")
        case .cannotConnect, .tls, .tooLarge, .refusedAddress, .failed:
            return AuthError(
                .networkError,
                "Cannot reach \(target) (\(error.message)); check the network, or, when "
                    + "using an emulator, that it runs at the address \(IdentityToolkitEndpoint.emulatorHostVariable) or "
                    + "useEmulator gave.")
        }
    }
}
