import Foundation

// The email action endpoints: `accounts:sendOobCode`, `accounts:resetPassword`, `accounts:update` with an
// `oobCode`, and `accounts:signInWithEmailLink`; and `accounts:createAuthUri`, how an address signs in.
extension IdentityToolkitBackend {
    package func sendOutOfBandCode(_ request: OutOfBandCodeRequest, context: AuthRequestContext) async throws(AuthError) {
        var body: [String: (any Sendable)?] = [
            "requestType": request.kind.rawValue, "email": request.email, "idToken": request.idToken, "newEmail": request.newEmail,
        ]
        for (name, value) in request.settingsFields { body[name] = value }
        let _: OutOfBandCodeReply = try await post("sendOobCode", json: body, tenant: true, context: context)
    }

    package func signInMethods(forEmail email: String, continueURI: String, context: AuthRequestContext) async throws(AuthError) -> [String] {
        let reply: CreateAuthURIReply = try await post(
            "createAuthUri", json: ["identifier": email, "continueUri": continueURI], tenant: true, context: context)
        return reply.signinMethods ?? []
    }

    package func resetPassword(
        oobCode: String, newPassword: String?, context: AuthRequestContext
    ) async throws(AuthError) -> ActionCodeInfo {
        let reply: ResetPasswordReply = try await post(
            "resetPassword", json: ["oobCode": oobCode, "newPassword": newPassword], tenant: true, context: context)
        return try reply.info
    }

    package func applyActionCode(_ oobCode: String, context: AuthRequestContext) async throws(AuthError) -> String? {
        let reply: AppliedCodeReply = try await post("update", json: ["oobCode": oobCode], tenant: true, context: context)
        return reply.localId
    }

    package func signIn(
        email: String, emailLinkCode: String, linkingTo idToken: String?, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: EmailLinkSignInReply = try await post(
            "signInWithEmailLink", json: ["email": email, "oobCode": emailLinkCode, "idToken": idToken],
            tenant: true, context: context)
        return try reply.signIn
    }
}

extension ResetPasswordReply {
    /// The code's operation and addresses; an answer without an address cannot be read.
    var info: ActionCodeInfo {
        get throws(AuthError) {
            guard let email, !email.isEmpty else {
                throw IdentityToolkitReply.malformed("accounts:resetPassword", "it names no email address")
            }
            let newEmail = newEmail.flatMap { $0.isEmpty ? nil : $0 }
            return ActionCodeInfo(operation: ActionCodeOperation(requestTypeOrMode: requestType), email: email, newEmail: newEmail)
        }
    }
}

extension EmailLinkSignInReply {
    var signIn: BackendSignIn {
        get throws(AuthError) {
            BackendSignIn(
                uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
                isNewUser: isNewUser ?? false)
        }
    }
}
