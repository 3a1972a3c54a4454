import Foundation

/// A phone verification code made and not yet used.
struct PhoneVerificationRecord: Sendable {
    var code: AuthEmulator.VerificationCode
    var tenantID: String?
    /// Set by ``EmulatorService/expireVerificationCodes()``: using the code answers `SESSION_EXPIRED`.
    var expired = false
}

/// A proof that a number was verified, answered instead of linking it when another account has it (`temporaryProof`):
/// the number signs in with it without a new code, as in firebase-tools (where proofs never expire).
struct TemporaryProof: Sendable {
    var proof: String
    var phoneNumber: String
}

// Phone sign-in as firebase-tools' emulator serves it: `accounts:sendVerificationCode` (a code listed and told to
// `onVerificationCode`, never sent), `accounts:signInWithPhoneNumber` (sign-up, sign-in, linking with an ID token),
// the code list, and `recaptchaParams`. Phone sign-in is the project's only: a tenant is `UNSUPPORTED_TENANT_OPERATION`.
extension EmulatorService {
    /// Verification codes, and temporary proofs, kept at once; the oldest go first.
    static let maximumVerificationCodes = 1000
    /// firebase-tools' `temporaryProofExpiresIn`, in seconds.
    static let temporaryProofExpiresIn = "3600"
    static let phoneFirstFactorOfMultiFactorUser =
        "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."

    /// An E.164 number as Identity Platform takes it: `+` then 2 to 15 digits (firebase-tools asks only for the `+`).
    static func isPhoneNumber(_ number: String) -> Bool {
        number.hasPrefix("+") && (3...16).contains(number.utf8.count) && number.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) }
    }

    var verificationCodes: [AuthEmulator.VerificationCode] { state.withLock { $0.verificationCodes.map(\.code) } }

    func expireVerificationCodes() {
        state.withLock { state in
            for index in state.verificationCodes.indices { state.verificationCodes[index].expired = true }
        }
    }

    /// The codes of the project (`tenant` `nil`) or of one tenant, as `GET …/verificationCodes` lists them.
    func verificationCodeList(tenant: String?) -> [String: Any] {
        let codes = state.withLock { state in state.verificationCodes.filter { $0.tenantID == tenant }.map(\.code) }
        return ["verificationCodes": codes.map(\.listFields)]
    }

    /// A new six-digit code for `number`, kept (the oldest dropped beyond ``maximumVerificationCodes``); the caller
    /// tells ``verificationCodeHandler`` once the state is unlocked.
    static func makeVerificationCode(
        for number: String, purpose: AuthEmulator.VerificationCode.Purpose, tenant: String?, in state: inout State
    ) -> AuthEmulator.VerificationCode {
        var generator = SystemRandomNumberGenerator()
        let digits = String((0..<6).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
        let code = AuthEmulator.VerificationCode(
            phoneNumber: number, code: digits, sessionInfo: EmulatorAccount.randomID(length: 80), purpose: purpose)
        if state.verificationCodes.count >= maximumVerificationCodes { state.verificationCodes.removeFirst() }
        state.verificationCodes.append(PhoneVerificationRecord(code: code, tenantID: tenant))
        return code
    }

    /// Uses the code of `sessionInfo` (of the project, or of `tenant`): the number it verified. A wrong code leaves it
    /// usable, as firebase-tools counts no attempts.
    ///
    /// - Throws: `INVALID_SESSION_INFO`, `INVALID_CODE`, `SESSION_EXPIRED` (after ``expireVerificationCodes()``).
    static func useVerificationCode(
        sessionInfo: String, code: String, tenant: String?, in state: inout State
    ) throws(EmulatorFailure) -> String {
        guard let index = state.verificationCodes.firstIndex(where: { $0.code.sessionInfo == sessionInfo && $0.tenantID == tenant }) else {
            throw EmulatorFailure("INVALID_SESSION_INFO")
        }
        let record = state.verificationCodes[index]
        if record.expired {
            state.verificationCodes.remove(at: index)
            throw EmulatorFailure("SESSION_EXPIRED")
        }
        guard record.code.code == code else { throw EmulatorFailure("INVALID_CODE") }
        state.verificationCodes.remove(at: index)
        return record.code.phoneNumber
    }

    /// `accounts:sendVerificationCode`: a code for `phoneNumber`, answered by its `sessionInfo`. App verification
    /// (`recaptchaToken`, `captchaResponse`, iOS and Android proofs) is not asked for unless the stand-in reCAPTCHA is on.
    func sendVerificationCode(_ fields: RequestFields, tenant: EmulatorTenant?) throws(EmulatorFailure) -> [String: Any] {
        guard tenant == nil else { throw EmulatorFailure("UNSUPPORTED_TENANT_OPERATION") }
        // A missing number is INVALID_PHONE_NUMBER too, as production and firebase-tools answer.
        guard let number = try fields.string("phoneNumber"), Self.isPhoneNumber(number) else {
            throw EmulatorFailure("INVALID_PHONE_NUMBER : Invalid format.")
        }
        var made: AuthEmulator.VerificationCode?
        defer { if let made { verificationCodeHandler?(made) } }
        return try state.withLock { state throws(EmulatorFailure) in
            try checkAppVerification(fields, action: .sendVerificationCode, in: &state)
            if let uid = state.uidsByPhone[Self.phoneKey(number, nil)], state.accounts[uid]?.secondFactors.isEmpty == false {
                throw EmulatorFailure(Self.phoneFirstFactorOfMultiFactorUser)
            }
            let code = Self.makeVerificationCode(for: number, purpose: .signIn, tenant: nil, in: &state)
            made = code
            return ["sessionInfo": code.sessionInfo]
        }
    }

    /// `accounts:signInWithPhoneNumber` with `{sessionInfo, code}` or `{phoneNumber, temporaryProof}`: signs the number's
    /// account in, or signs a new one up; with `idToken`, gives the number to that account, unless another has it: then
    /// a 200 answer with a `temporaryProof` and no tokens (with a proof already, `PHONE_NUMBER_EXISTS`).
    ///
    /// `operation: "REAUTH"` with a number no account has answers `USER_NOT_FOUND`, as Identity Platform does (the
    /// SDKs' reauthentication then reports the user deleted); firebase-tools ignores `operation` and signs a new
    /// account up.
    func signInWithPhoneNumber(_ fields: RequestFields, tenant: EmulatorTenant?) throws(EmulatorFailure) -> [String: Any] {
        guard tenant == nil else { throw EmulatorFailure("UNSUPPORTED_TENANT_OPERATION") }
        let temporaryProof = try fields.string("temporaryProof").flatMap { $0.isEmpty ? nil : $0 }
        let givenNumber = try fields.string("phoneNumber").flatMap { $0.isEmpty ? nil : $0 }
        let sessionInfo = try fields.string("sessionInfo").flatMap { $0.isEmpty ? nil : $0 }
        let code = try fields.string("code").flatMap { $0.isEmpty ? nil : $0 }
        if temporaryProof != nil {
            guard givenNumber != nil else { throw EmulatorFailure("MISSING_PHONE_NUMBER") }
        } else {
            guard sessionInfo != nil else { throw EmulatorFailure("MISSING_SESSION_INFO") }
            guard code != nil else { throw EmulatorFailure("MISSING_CODE") }
        }
        let idToken = try fields.string("idToken")
        let reauthenticates = try fields.string("operation") == "REAUTH"
        return try state.withLock { state throws(EmulatorFailure) in
            let number: String
            if let temporaryProof, let givenNumber {
                guard state.temporaryProofs.contains(where: { $0.proof == temporaryProof && $0.phoneNumber == givenNumber }) else {
                    throw EmulatorFailure("INVALID_TEMPORARY_PROOF")
                }
                number = givenNumber
            } else if let sessionInfo, let code {
                number = try Self.useVerificationCode(sessionInfo: sessionInfo, code: code, tenant: nil, in: &state)
            } else {
                throw EmulatorFailure("MISSING_SESSION_INFO")
            }
            let owner = state.uidsByPhone[Self.phoneKey(number, nil)].flatMap { state.accounts[$0] }
            let signedIn = try idToken.map { (token) throws(EmulatorFailure) in try verify(token, in: state) }
            if let signedIn, signedIn.tenantId != nil { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            if let owner, let signedIn, owner.localId != signedIn.localId {
                guard temporaryProof == nil else { throw EmulatorFailure("PHONE_NUMBER_EXISTS") }
                // The number is verified, but another account has it: a proof lets the app sign in to that account.
                let proof = TemporaryProof(proof: EmulatorAccount.randomID(length: 119), phoneNumber: number)
                if state.temporaryProofs.count >= Self.maximumVerificationCodes { state.temporaryProofs.removeFirst() }
                state.temporaryProofs.append(proof)
                return ["phoneNumber": number, "temporaryProof": proof.proof, "temporaryProofExpiresIn": Self.temporaryProofExpiresIn]
            }
            let now = clock()
            var account: EmulatorAccount
            let isNewUser: Bool
            if let existing = signedIn ?? owner {
                account = existing
                guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
                guard account.secondFactors.isEmpty else { throw EmulatorFailure(Self.phoneFirstFactorOfMultiFactorUser) }
                if let old = account.phoneNumber, old != number { state.uidsByPhone[Self.phoneKey(old, nil)] = nil }
                isNewUser = false
            } else {
                // Identity Platform's answer to a reauthentication with a number of no account (firebase-tools: a new one).
                guard !reauthenticates else { throw EmulatorFailure("USER_NOT_FOUND") }
                guard state.accounts.count < maximumAccounts else {
                    throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
                }
                account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: nil)
                isNewUser = true
            }
            account.phoneNumber = number
            account.lastLoginAt = now.milliseconds
            Self.store(account, in: &state)
            var reply = issueTokens(for: account, provider: "phone", now: now, in: &state).signInFields
            reply["isNewUser"] = isNewUser
            reply["phoneNumber"] = number
            return reply
        }
    }

    /// `GET v1/recaptchaParams`: the v2 site key. firebase-tools' made-up key, which no client should send to Google
    /// (clients turn app verification off against an emulator); the stand-in reCAPTCHA's key when that is on.
    func recaptchaParams() -> [String: Any] {
        guard recaptcha != nil else {
            return [
                "kind": "identitytoolkit#GetRecaptchaParamResponse",
                "recaptchaStoken":
                    "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
                "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
            ]
        }
        return [
            "kind": "identitytoolkit#GetRecaptchaParamResponse", "recaptchaSiteKey": AuthEmulator.StandInRecaptcha.siteKey,
            "recaptchaStoken": "stand-in-recaptcha-stoken",
        ]
    }
}
