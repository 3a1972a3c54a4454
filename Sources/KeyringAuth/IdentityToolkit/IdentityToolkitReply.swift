import Foundation

/// Turns an answer into a reply or a typed error; kept apart from the transport so literal bodies can be tested.
enum IdentityToolkitReply {
    private static let decoder = JSONDecoder()

    static func decode<Reply: Decodable>(
        _ type: Reply.Type, status: Int, body: Data, operation: String
    ) throws(AuthError) -> Reply {
        guard (200..<300).contains(status) else { throw serverError(status: status, body: body, operation: operation) }
        if let pending = try? decoder.decode(SecondFactorPendingReply.self, from: body), pending.mfaPendingCredential != nil,
            pending.idToken == nil
        {
            guard let challenge = pending.challenge else {
                throw malformed(operation, "it asks for a second factor but lists none usable")
            }
            throw challenge.error
        }
        do {
            return try decoder.decode(Reply.self, from: body)
        } catch let error as DecodingError {
            throw malformed(operation, error.readableDescription)
        } catch {
            throw malformed(operation, "\(error)")
        }
    }

    static func serverError(status: Int, body: Data, operation: String) -> AuthError {
        guard let reply = try? decoder.decode(ServerErrorReply.self, from: body) else {
            if status >= 500 || status == 0 {
                return AuthError(.networkError, "The identity service failed with HTTP \(status) on \(operation); try again later.")
            }
            return malformed(operation, "HTTP \(status) without an error body")
        }
        if status == 401, reply.error.message.hasPrefix(appCheckRefusal) {
            // Firebase's SDKs report it as an internal error; the message says why, and what to do.
            var error = AuthError(
                .internalError,
                "Firebase App Check token is invalid: the project enforces App Check on Authentication, and \(operation) "
                    + "carried no valid token. Set an App Check provider factory before FirebaseApp.configure() "
                    + "(AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory()) with a debug secret registered in the "
                    + "Firebase console, or the app's custom provider); a warning of KeyringAuth.AppCheck says why a token was missing.")
            error.serverResponse = body
            return error
        }
        var error = ServerErrorCode(message: reply.error.message, reasons: reply.reasons).authError
        if error.code == .internalError && status == 429 {
            return AuthError(.tooManyRequests, "Too many requests; wait a while and try again. (\(reply.error.message))")
        }
        if error.code == .internalError { error.serverResponse = body }
        return error
    }

    /// Identity Platform's message when App Check is enforced on Authentication and a request has no valid token.
    static let appCheckRefusal = "Firebase App Check token is invalid"

    static func malformed(_ operation: String, _ reason: String) -> AuthError {
        AuthError(
            .internalError,
            "The identity service's answer to \(operation) cannot be read (\(reason)); check that the endpoint is "
                + "Identity Toolkit or its emulator.")
    }
}

extension AuthError {
    /// Whether this is Identity Platform's 401 for a request without a valid App Check token (an internal error whose
    /// message begins "Firebase App Check token is invalid").
    package var isAppCheckRefusal: Bool {
        code == .internalError && message.hasPrefix(IdentityToolkitReply.appCheckRefusal)
    }
}
