import Foundation

// The multi-factor endpoints (Identity Toolkit v2): `mfaSignIn:finalize`, and `mfaEnrollment:start`, `:finalize` and
// `:withdraw` with a TOTP factor.
extension IdentityToolkitBackend {
    package func finalizeSecondFactorSignIn(
        pendingCredential: String, enrollmentID: String, oneTimePassword: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: SecondFactorSignInReply = try await postMultiFactor(
            "mfaSignIn:finalize",
            json: [
                "mfaPendingCredential": pendingCredential, "mfaEnrollmentId": enrollmentID,
                "totpVerificationInfo": ["verificationCode": oneTimePassword],
            ], context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaSignIn:finalize")
    }

    package func startTOTPEnrollment(idToken: String, context: AuthRequestContext) async throws(AuthError) -> TOTPSecret {
        let reply: TOTPEnrollmentStartReply = try await postMultiFactor(
            "mfaEnrollment:start", json: ["idToken": idToken, "totpEnrollmentInfo": [String: String]()], context: context)
        let session = reply.totpSessionInfo
        guard session.sharedSecretKey.utf8.count <= 256, session.sessionInfo.utf8.count <= 4096 else {
            throw IdentityToolkitReply.malformed("mfaEnrollment:start", "its secret or session is too long")
        }
        return TOTPSecret(
            secretKey: session.sharedSecretKey, sessionInfo: session.sessionInfo, hashingAlgorithm: session.hashingAlgorithm ?? "SHA1",
            codeLength: Int(clamping: session.verificationCodeLength?.value ?? 6), period: Int(clamping: session.periodSec?.value ?? 30))
    }

    package func finalizeTOTPEnrollment(
        idToken: String, secret: TOTPSecret, oneTimePassword: String, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens {
        var body: [String: any Sendable] = [
            "idToken": idToken, "totpVerificationInfo": ["sessionInfo": secret.sessionInfo, "verificationCode": oneTimePassword],
        ]
        if let displayName { body["displayName"] = displayName }
        let reply: SecondFactorSignInReply = try await postMultiFactor("mfaEnrollment:finalize", json: body, context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaEnrollment:finalize").tokens
    }

    package func withdrawSecondFactor(idToken: String, enrollmentID: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        let reply: SecondFactorSignInReply = try await postMultiFactor(
            "mfaEnrollment:withdraw", json: ["idToken": idToken, "mfaEnrollmentId": enrollmentID], context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaEnrollment:withdraw").tokens
    }

    /// A POST to Identity Toolkit's v2 multi-factor `method`, with the context's tenant.
    func postMultiFactor<Reply: Decodable>(
        _ method: String, json: [String: any Sendable], context: AuthRequestContext
    ) async throws(AuthError) -> Reply {
        var body = json
        if let tenantID = context.tenantID { body["tenantId"] = tenantID }
        let url = try endpoint().multiFactorURL(method, apiKey: apiKey)
        return try await send(
            url, operation: method, contentType: "application/json",
            body: try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), context: context)
    }
}
