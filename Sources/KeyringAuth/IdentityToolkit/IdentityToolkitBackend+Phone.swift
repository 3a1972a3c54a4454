import Foundation

// Phone numbers: the reCAPTCHA set-up, sending an SMS code (`accounts:sendVerificationCode`, `mfaEnrollment:start`,
// `mfaSignIn:start`), and checking it (`accounts:signInWithPhoneNumber`, `mfaEnrollment:finalize`, `mfaSignIn:finalize`).
extension IdentityToolkitBackend {
    /// Google's reCAPTCHA, or the emulator's stand-in for it (`/emulator/recaptcha`), which its `--recaptcha` option serves.
    package var recaptchaScriptBase: String {
        guard let host = (try? endpoint())?.emulatorHost else { return "https://www.google.com/recaptcha" }
        return "http://\(host)/emulator/recaptcha"
    }

    package func recaptchaConfig(context: AuthRequestContext) async throws(AuthError) -> RecaptchaConfig {
        var query = ["clientType": "CLIENT_TYPE_WEB", "version": "RECAPTCHA_ENTERPRISE"]
        query["tenantId"] = context.tenantID
        let operation = "recaptchaConfig"
        let url = try endpoint().identityToolkitV2URL("recaptchaConfig", apiKey: apiKey, query: query)
        let answer = try await get(url, operation: operation, context: context)
        let reply = try IdentityToolkitReply.decode(RecaptchaConfigReply.self, status: answer.status, body: answer.body, operation: operation)
        let phone = reply.recaptchaEnforcementState?.first { $0.provider == "PHONE_PROVIDER" }?.enforcementState
        let key = reply.recaptchaKey.flatMap { $0.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).first }.map(String.init)
        guard (key?.utf8.count ?? 0) <= 256 else { throw IdentityToolkitReply.malformed(operation, "its key is too long") }
        return RecaptchaConfig(
            siteKey: key?.isEmpty == false ? key : nil, phoneEnforcement: phone.flatMap(RecaptchaConfig.Enforcement.init(rawValue:)) ?? .off)
    }

    package func recaptchaSiteKey(context: AuthRequestContext) async throws(AuthError) -> String {
        let operation = "recaptchaParams"
        let answer = try await get(try endpoint().identityToolkitURL("recaptchaParams", apiKey: apiKey), operation: operation, context: context)
        let reply = try IdentityToolkitReply.decode(RecaptchaParamsReply.self, status: answer.status, body: answer.body, operation: operation)
        guard !reply.recaptchaSiteKey.isEmpty, reply.recaptchaSiteKey.utf8.count <= 256 else {
            throw IdentityToolkitReply.malformed(operation, "its site key is empty or too long")
        }
        return reply.recaptchaSiteKey
    }

    package func sendVerificationCode(
        _ request: PhoneCodeRequest, verification: AppVerificationFields, context: AuthRequestContext
    ) async throws(AuthError) -> String {
        let sessionInfo: String
        let operation: String
        switch request {
        case .firstFactor(let phoneNumber):
            operation = "accounts:sendVerificationCode"
            var body: [String: (any Sendable)?] = ["phoneNumber": phoneNumber]
            for (name, value) in verification.json { body[name] = value }
            let reply: SendVerificationCodeReply = try await post("sendVerificationCode", json: body, tenant: true, context: context)
            sessionInfo = reply.sessionInfo
        case .enrollment(let idToken, let phoneNumber):
            operation = "mfaEnrollment:start"
            let info = verification.json.merging(["phoneNumber": phoneNumber]) { $1 }
            let reply: PhoneEnrollmentStartReply = try await postMultiFactor(
                operation, json: ["idToken": idToken, "phoneEnrollmentInfo": info], context: context)
            sessionInfo = reply.phoneSessionInfo.sessionInfo
        case .secondFactorSignIn(let pendingCredential, let enrollmentID):
            operation = "mfaSignIn:start"
            let reply: PhoneSignInStartReply = try await postMultiFactor(
                operation,
                json: ["mfaPendingCredential": pendingCredential, "mfaEnrollmentId": enrollmentID, "phoneSignInInfo": verification.json],
                context: context)
            sessionInfo = reply.phoneResponseInfo.sessionInfo
        }
        guard !sessionInfo.isEmpty, sessionInfo.utf8.count <= AuthCredential.maximumFieldBytes else {
            throw IdentityToolkitReply.malformed(operation, "its verification ID is empty or too long")
        }
        return sessionInfo
    }

    package func signIn(
        with credential: PhoneAuthCredential, operation: PhoneOperation, idToken: String?, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        var body: [String: (any Sendable)?] = ["idToken": idToken, "operation": operation.rawValue]
        switch credential.kind {
        case .verification(let id, let code): (body["sessionInfo"], body["code"]) = (id, code)
        case .temporaryProof(let number, let proof): (body["phoneNumber"], body["temporaryProof"]) = (number, proof)
        }
        let reply: PhoneSignInReply = try await post("signInWithPhoneNumber", json: body, tenant: true, context: context)
        return try reply.signIn
    }

    package func finalizePhoneEnrollment(
        idToken: String, credential: PhoneAuthCredential, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens {
        var body: [String: any Sendable] = ["idToken": idToken, "phoneVerificationInfo": try Self.verificationInfo(credential)]
        if let displayName { body["displayName"] = displayName }
        let reply: SecondFactorSignInReply = try await postMultiFactor("mfaEnrollment:finalize", json: body, context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaEnrollment:finalize").tokens
    }

    package func finalizePhoneSecondFactorSignIn(
        pendingCredential: String, credential: PhoneAuthCredential, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        let reply: SecondFactorSignInReply = try await postMultiFactor(
            "mfaSignIn:finalize",
            json: ["mfaPendingCredential": pendingCredential, "phoneVerificationInfo": try Self.verificationInfo(credential)],
            context: context)
        return try BackendSignIn(signedInWith: reply.idToken, refreshToken: reply.refreshToken, operation: "mfaSignIn:finalize")
    }

    /// `phoneVerificationInfo`: the verification ID and the SMS code; a temporary proof cannot finish a second factor.
    private static func verificationInfo(_ credential: PhoneAuthCredential) throws(AuthError) -> [String: String] {
        guard case .verification(let id, let code) = credential.kind else {
            throw AuthError(
                .invalidCredential,
                "A second factor is proven with an SMS code (PhoneAuthProvider.credential(withVerificationID:verificationCode:)), "
                    + "not with another account's temporary proof.")
        }
        return ["sessionInfo": id, "code": code]
    }
}

/// `GET v2/recaptchaConfig`.
struct RecaptchaConfigReply: Decodable {
    struct ProviderState: Decodable {
        var provider: String?
        var enforcementState: String?
    }

    var recaptchaKey: String?
    var recaptchaEnforcementState: [ProviderState]?
}

/// `GET v1/recaptchaParams`.
struct RecaptchaParamsReply: Decodable {
    var recaptchaSiteKey: String
}

/// `accounts:sendVerificationCode`.
struct SendVerificationCodeReply: Decodable {
    var sessionInfo: String
}

/// `mfaEnrollment:start` for a phone.
struct PhoneEnrollmentStartReply: Decodable {
    struct Session: Decodable { var sessionInfo: String }
    var phoneSessionInfo: Session
}

/// `mfaSignIn:start`.
struct PhoneSignInStartReply: Decodable {
    struct Session: Decodable { var sessionInfo: String }
    var phoneResponseInfo: Session
}

/// `accounts:signInWithPhoneNumber`: tokens, or, for a number another account has, a temporary proof and no tokens.
struct PhoneSignInReply: Decodable {
    var localId: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: LenientInt?
    var isNewUser: Bool?
    var phoneNumber: String?
    var temporaryProof: String?

    var signIn: BackendSignIn {
        get throws(AuthError) {
            if idToken == nil, let temporaryProof, !temporaryProof.isEmpty, let phoneNumber, !phoneNumber.isEmpty {
                var error = AuthError(
                    .credentialAlreadyInUse,
                    "Another account has this phone number; the error's updatedCredential signs in to it, or unlink the number there first.")
                error.updatedCredential = PhoneAuthCredential(temporaryProof: temporaryProof, phoneNumber: phoneNumber)
                throw error
            }
            guard let localId, let idToken, let refreshToken, let expiresIn else {
                throw IdentityToolkitReply.malformed("accounts:signInWithPhoneNumber", "it has neither tokens nor a temporary proof")
            }
            return BackendSignIn(
                uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
                isNewUser: isNewUser ?? false)
        }
    }
}
