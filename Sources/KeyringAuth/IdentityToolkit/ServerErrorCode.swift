/// An Identity Toolkit error message, `CODE` or `CODE : detail`, and the ``AuthErrorCode`` it means.
struct ServerErrorCode: Hashable, Sendable {
    /// The server's code, for example `WEAK_PASSWORD`.
    let code: String
    /// What follows the first colon, when the server adds a detail.
    let detail: String?
    /// The `reason`s of the reply's `errors` and `details`, for example `API_KEY_INVALID`.
    let reasons: [String]

    /// Splits `message` at its first colon, as Firebase's SDKs do (`INVALID_ID_TOKEN:The user's…` and
    /// `WEAK_PASSWORD : Password should…` both occur).
    init(message: String, reasons: [String] = []) {
        // Only an upper-case code is split off: Google's sentences contain colons too.
        if let colon = message.firstIndex(of: ":"),
            message[..<colon].trimmingCharacters(in: .whitespaces).allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber })
        {
            code = message[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
            let rest = message[message.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            detail = rest.isEmpty ? nil : rest
        } else {
            code = message.trimmingCharacters(in: .whitespacesAndNewlines)
            detail = nil
        }
        self.reasons = reasons
    }

    /// The client code and the advice for each server code Identity Toolkit documents: every code's
    /// `AuthErrorCode.Entry.server`, which the tests check names each message once.
    static let table: [String: (AuthErrorCode, String)] = {
        var table: [String: (AuthErrorCode, String)] = [:]
        for code in AuthErrorCode.allCases {
            for server in code.entry.server where table[server.message] == nil { table[server.message] = (code, server.advice) }
        }
        return table
    }()

    /// The typed error: the mapped code, the advice, and the server's own words, in Firebase's order: the
    /// message's code first, then the reasons of a message it does not know.
    var authError: AuthError {
        let server = detail.map { "\(code): \($0)" } ?? code
        if let (mapped, advice) = Self.table[code] {
            var error = AuthError(mapped, "\(advice) (\(server))")
            error.serverDetail = detail
            return error
        }
        // Google answers a bad or missing key with a sentence (and a reason), not a code.
        if code.hasPrefix("API key not valid") || code.hasPrefix("API key expired")
            || code.hasPrefix("The request is missing a valid API key")
            || reasons.contains(where: { $0 == "API_KEY_INVALID" || $0.hasPrefix("keyInvalid") })
        {
            return AuthError(.invalidAPIKey, "The API key was refused (\(server)); copy the Web API key from the Firebase console.")
        }
        if reasons.contains("ipRefererBlocked") {
            return AuthError(
                .appNotAuthorized,
                "The API key does not allow this app (\(server)); lift its application restrictions in the Google Cloud console.")
        }
        return AuthError(.internalError, "The identity service refused the request (\(server)).")
    }
}
