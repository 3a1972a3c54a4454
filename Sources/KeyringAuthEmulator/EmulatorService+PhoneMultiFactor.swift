import Foundation

// SMS second factors, as firebase-tools' emulator serves them (`mfaEnrollment:start|finalize` with
// `phoneEnrollmentInfo` / `phoneVerificationInfo`, `mfaSignIn:start|finalize`): each code is listed with the others
// and told to `onVerificationCode`, never sent; its messages are firebase-tools'.
extension EmulatorService {
    private static let phoneAlreadyEnrolled = "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account."

    /// `mfaEnrollment:start` with `phoneEnrollmentInfo`: a code for the number, answered as `phoneSessionInfo`.
    func startPhoneEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        var made: AuthEmulator.VerificationCode?
        defer { if let made { verificationCodeHandler?(made) } }
        return try state.withLock { state throws(EmulatorFailure) in
            let (account, provider) = try verifySession(token, in: state)
            try Self.checkCanEnroll(account, provider: provider)
            guard let info = try fields.object("phoneEnrollmentInfo") else {
                throw EmulatorFailure("INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))")
            }
            // A missing number is INVALID_PHONE_NUMBER too, as production and firebase-tools answer.
            guard let number = try info.string("phoneNumber"), Self.isPhoneNumber(number) else {
                throw EmulatorFailure("INVALID_PHONE_NUMBER : Invalid format.")
            }
            try checkAppVerification(info, action: .mfaSmsEnrollment, in: &state)
            guard !account.secondFactors.contains(where: { $0.phoneNumber == number }) else { throw EmulatorFailure(Self.phoneAlreadyEnrolled) }
            let code = Self.makeVerificationCode(for: number, purpose: .multiFactorEnrollment, tenant: account.tenantId, in: &state)
            made = code
            return ["phoneSessionInfo": ["sessionInfo": code.sessionInfo]]
        }
    }

    /// `mfaEnrollment:finalize` with `phoneVerificationInfo`: the number becomes a factor; new tokens whose session
    /// passed it (`sign_in_second_factor: "phone"`).
    func finalizePhoneEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        let displayName = try fields.string("displayName")
        if let displayName, displayName.count > 256 { throw EmulatorFailure("INVALID_ARGUMENT : displayName is too long") }
        return try state.withLock { state throws(EmulatorFailure) in
            var (account, provider) = try verifySession(token, in: state)
            try Self.checkCanEnroll(account, provider: provider)
            guard let info = try fields.object("phoneVerificationInfo") else {
                throw EmulatorFailure("INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))")
            }
            let (sessionInfo, code) = try Self.phoneVerification(info)
            let number = try Self.useVerificationCode(sessionInfo: sessionInfo, code: code, tenant: account.tenantId, in: &state)
            guard !account.secondFactors.contains(where: { $0.phoneNumber == number }) else { throw EmulatorFailure(Self.phoneAlreadyEnrolled) }
            let now = clock()
            let factor = SecondFactor(
                enrollmentID: EmulatorAccount.randomID(length: 28), displayName: displayName, enrolledAt: now.milliseconds,
                kind: .phone(number))
            account.secondFactors.append(factor)
            state.accounts[account.localId] = account
            let used = RefreshToken.SecondFactorUse(identifier: factor.enrollmentID, provider: "phone")
            var reply = issueTokens(for: account, provider: provider, secondFactor: used, now: now, in: &state).signInFields
            reply["phoneAuthInfo"] = ["phoneNumber": number]
            return reply
        }
    }

    /// `mfaSignIn:start`: a code for the SMS factor `mfaEnrollmentId` of the pending sign-in, answered as
    /// `phoneResponseInfo`. firebase-tools does not require `phoneSignInInfo` (it holds only app verification).
    func startPhoneSignIn(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        guard let credential = try fields.string("mfaPendingCredential"), !credential.isEmpty else {
            throw EmulatorFailure("MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
        }
        guard let enrollmentID = try fields.string("mfaEnrollmentId"), !enrollmentID.isEmpty else {
            throw EmulatorFailure("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
        }
        let info = try fields.object("phoneSignInInfo") ?? RequestFields(values: [:])
        var made: AuthEmulator.VerificationCode?
        defer { if let made { verificationCodeHandler?(made) } }
        return try state.withLock { state throws(EmulatorFailure) in
            let (_, account) = try pendingSignIn(credential, in: state)
            guard let factor = account.secondFactors.first(where: { $0.enrollmentID == enrollmentID }) else {
                throw EmulatorFailure("MFA_ENROLLMENT_NOT_FOUND")
            }
            guard let number = factor.phoneNumber else { throw EmulatorFailure("INVALID_ARGUMENT : MFA provider not supported!") }
            try checkAppVerification(info, action: .mfaSmsSignIn, in: &state)
            let code = Self.makeVerificationCode(for: number, purpose: .multiFactorSignIn, tenant: account.tenantId, in: &state)
            made = code
            return ["phoneResponseInfo": ["sessionInfo": code.sessionInfo]]
        }
    }

    /// `mfaSignIn:finalize` with `phoneVerificationInfo`: the sign-in's tokens, once the code verified one of the
    /// account's numbers (given in full, or hidden as the first factor's `mfaInfo` lists it, as Apple's SDK sends it).
    func finalizePhoneSignIn(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        // MISSING_CREDENTIAL here, MISSING_MFA_PENDING_CREDENTIAL at the start: production's, as firebase-tools has it.
        guard let credential = try fields.string("mfaPendingCredential"), !credential.isEmpty else {
            throw EmulatorFailure("MISSING_CREDENTIAL : Please set MFA Pending Credential.")
        }
        guard let info = try fields.object("phoneVerificationInfo") else { throw EmulatorFailure("INVALID_ARGUMENT : MFA provider not supported!") }
        let (sessionInfo, code) = try Self.phoneVerification(info)
        return try state.withLock { state throws(EmulatorFailure) in
            // The code first, then the pending sign-in, in firebase-tools' order; the code is the account's tenant's.
            let tenant = state.pendingSignIns[credential].flatMap { state.accounts[$0.uid] }?.tenantId
            let number = try Self.useVerificationCode(sessionInfo: sessionInfo, code: code, tenant: tenant, in: &state)
            let (pending, signedIn) = try pendingSignIn(credential, in: state)
            var account = signedIn
            guard let factor = account.secondFactors.first(where: { factor in
                factor.phoneNumber.map { $0 == number || SecondFactor.obfuscated($0) == number } ?? false
            }) else { throw EmulatorFailure("MFA_ENROLLMENT_NOT_FOUND") }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            let now = clock()
            account.lastLoginAt = now.milliseconds
            state.accounts[account.localId] = account
            state.pendingSignIns[credential] = nil
            let used = RefreshToken.SecondFactorUse(identifier: factor.enrollmentID, provider: "phone")
            return issueTokens(for: account, provider: pending.provider, secondFactor: used, now: now, in: &state).signInFields
        }
    }

    /// The pending sign-in of `credential` and its account.
    ///
    /// - Throws: `INVALID_MFA_PENDING_CREDENTIAL` when it is unknown, used or expired, or its account is gone.
    func pendingSignIn(_ credential: String, in state: State) throws(EmulatorFailure) -> (PendingSecondFactor, EmulatorAccount) {
        guard let pending = state.pendingSignIns[credential], pending.expires > clock().seconds, let account = state.accounts[pending.uid] else {
            throw EmulatorFailure("INVALID_MFA_PENDING_CREDENTIAL")
        }
        return (pending, account)
    }

    /// `phoneVerificationInfo`'s session and code, in firebase-tools' order of refusals.
    private static func phoneVerification(_ info: RequestFields) throws(EmulatorFailure) -> (sessionInfo: String, code: String) {
        if info.has("androidVerificationProof") { throw EmulatorFailure.notImplemented("androidVerificationProof is unsupported!") }
        guard let code = try info.string("code"), !code.isEmpty else { throw EmulatorFailure("MISSING_CODE") }
        guard let sessionInfo = try info.string("sessionInfo"), !sessionInfo.isEmpty else { throw EmulatorFailure("MISSING_SESSION_INFO") }
        return (sessionInfo, code)
    }
}
