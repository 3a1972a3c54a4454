import Foundation

/// A TOTP enrollment begun (`mfaEnrollment:start`) and not yet finalized.
struct PendingEnrollment: Sendable {
    var uid: String
    var secret: [UInt8]
    var expires: Int64
}

/// A first factor passed for an account with second factors (`mfaPendingCredential`).
struct PendingSecondFactor: Sendable {
    var uid: String
    var provider: String
    var expires: Int64
}

// Multi-factor sign-in and enrollment (Identity Toolkit v2 `mfaEnrollment:*`, `mfaSignIn:*`): TOTP here, which
// Firebase's own emulator does not offer, and SMS (firebase-tools') in EmulatorService+PhoneMultiFactor.
extension EmulatorService {
    static let identityToolkitV2 = "/identitytoolkit.googleapis.com/v2/"
    /// At most this many second factors per account, as Identity Platform.
    static let maximumSecondFactors = 5
    /// How long an enrollment session and a pending sign-in last, in seconds.
    static let secondFactorSessionLifetime: Int64 = 600
    /// Pending enrollments and sign-ins kept at once; the oldest go first.
    static let maximumPendingSecondFactors = 1000

    func routeMultiFactor(_ operation: Substring, _ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let sms = Self.isSMSOperation(operation, fields)
        switch operation {
        case "mfaEnrollment:start": return sms ? try startPhoneEnrollment(fields) : try startEnrollment(fields)
        case "mfaEnrollment:finalize": return sms ? try finalizePhoneEnrollment(fields) : try finalizeEnrollment(fields)
        case "mfaEnrollment:withdraw": return try withdrawEnrollment(fields)
        case "mfaSignIn:start": return try startPhoneSignIn(fields)
        case "mfaSignIn:finalize": return sms ? try finalizePhoneSignIn(fields) : try finalizeSecondFactorSignIn(fields)
        default: throw EmulatorFailure("INVALID_ARGUMENT : unknown multi-factor operation \(operation)", status: 404, grpcStatus: "NOT_FOUND")
        }
    }

    /// Whether a v2 `accounts/` operation is about an SMS factor: `mfaSignIn:start` always, enrollment and finalizing
    /// unless the request carries TOTP's fields (`totpEnrollmentInfo`, `totpVerificationInfo`), as firebase-tools
    /// takes every such request as SMS.
    static func isSMSOperation(_ operation: Substring, _ fields: RequestFields) -> Bool {
        switch operation {
        case "mfaSignIn:start": true
        case "mfaEnrollment:start": !fields.has("totpEnrollmentInfo")
        case "mfaEnrollment:finalize", "mfaSignIn:finalize": !fields.has("totpVerificationInfo")
        default: false
        }
    }

    /// The reply to a first factor passed by `account`: its tokens, or, when it has second factors, a pending
    /// credential and its `mfaInfo`, without tokens.
    func firstFactorFields(
        for account: EmulatorAccount, provider: String, signInAttributes: String? = nil, now: Date, in state: inout State
    ) -> [String: Any] {
        guard !account.secondFactors.isEmpty else {
            // Signed in: the login time moves now, not before the second factor, as in firebase-tools.
            var account = account
            account.lastLoginAt = now.milliseconds
            state.accounts[account.localId] = account
            return issueTokens(for: account, provider: provider, signInAttributes: signInAttributes, now: now, in: &state).signInFields
        }
        let credential = EmulatorAccount.randomID(length: 40)
        Self.keepBounded(&state.pendingSignIns)
        state.pendingSignIns[credential] = PendingSecondFactor(
            uid: account.localId, provider: provider, expires: now.seconds + Self.secondFactorSessionLifetime)
        return ["localId": account.localId, "mfaPendingCredential": credential, "mfaInfo": account.secondFactors.map(\.pendingInfoFields)]
    }

    static func keepBounded<Value>(_ pending: inout [String: Value]) {
        if pending.count >= maximumPendingSecondFactors, let first = pending.keys.first { pending[first] = nil }
    }

    private func startEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            // The account first, then the factor, in firebase-tools' order.
            let (account, provider) = try verifySession(token, in: state)
            try Self.checkCanEnroll(account, provider: provider)
            let now = clock()
            let secret = (0..<20).map { _ in UInt8.random(in: 0...255) }
            let session = EmulatorAccount.randomID(length: 40)
            Self.keepBounded(&state.pendingEnrollments)
            state.pendingEnrollments[session] = PendingEnrollment(
                uid: account.localId, secret: secret, expires: now.seconds + Self.secondFactorSessionLifetime)
            return ["totpSessionInfo": [
                "sharedSecretKey": TOTP.base32(secret), "verificationCodeLength": 6, "hashingAlgorithm": "SHA1", "periodSec": 30,
                "sessionInfo": session,
                "finalizeEnrollmentTime": SecondFactor.timestamp((now.seconds + Self.secondFactorSessionLifetime) * 1000),
            ] as [String: Any]]
        }
    }

    /// The first factors after which no second factor can be enrolled, as firebase-tools lists them.
    private static let ineligibleFirstFactors: Set<String> = ["anonymous", "phone", "custom", "gc.apple.com"]

    static func checkCanEnroll(_ account: EmulatorAccount, provider: String) throws(EmulatorFailure) {
        guard !account.isAnonymous, !ineligibleFirstFactors.contains(provider) else {
            throw EmulatorFailure("UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
        }
        guard account.emailVerified else {
            throw EmulatorFailure("UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
        }
        guard account.secondFactors.count < maximumSecondFactors else { throw EmulatorFailure("SECOND_FACTOR_LIMIT_EXCEEDED") }
    }

    private func finalizeEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        let displayName = try fields.string("displayName")
        let verification = try Self.totpVerification(fields)
        guard let session = verification.sessionInfo else { throw EmulatorFailure("INVALID_ARGUMENT : Missing totpVerificationInfo.sessionInfo.") }
        return try state.withLock { state throws(EmulatorFailure) in
            var (account, provider) = try verifySession(token, in: state)
            let now = clock()
            guard let pending = state.pendingEnrollments[session], pending.uid == account.localId, pending.expires > now.seconds else {
                throw EmulatorFailure("INVALID_ARGUMENT : The enrollment session is not this user's, or it has expired; start again.")
            }
            guard let step = Self.acceptedStep(of: verification.code, secret: pending.secret, after: -1, at: now) else {
                throw EmulatorFailure("INVALID_CODE")
            }
            try Self.checkCanEnroll(account, provider: provider)
            state.pendingEnrollments[session] = nil
            account.secondFactors.append(SecondFactor(
                enrollmentID: EmulatorAccount.randomID(length: 20), displayName: displayName, enrolledAt: now.milliseconds,
                kind: .totp(secret: pending.secret, lastUsedStep: step)))
            state.accounts[account.localId] = account
            var reply = issueTokens(for: account, provider: provider, now: now, in: &state).signInFields
            reply["totpAuthInfo"] = [String: Any]()
            return reply
        }
    }

    private func withdrawEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        guard let enrollmentID = try fields.string("mfaEnrollmentId"), !enrollmentID.isEmpty else {
            throw EmulatorFailure("MISSING_MFA_ENROLLMENT_ID")
        }
        return try state.withLock { state throws(EmulatorFailure) in
            var (account, provider) = try verifySession(token, in: state)
            guard let index = account.secondFactors.firstIndex(where: { $0.enrollmentID == enrollmentID }) else {
                throw EmulatorFailure("MFA_ENROLLMENT_NOT_FOUND")
            }
            account.secondFactors.remove(at: index)
            state.accounts[account.localId] = account
            return issueTokens(for: account, provider: provider, now: clock(), in: &state).signInFields
        }
    }

    private func finalizeSecondFactorSignIn(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        guard let credential = try fields.string("mfaPendingCredential"), !credential.isEmpty else {
            throw EmulatorFailure("MISSING_MFA_PENDING_CREDENTIAL")
        }
        guard let enrollmentID = try fields.string("mfaEnrollmentId"), !enrollmentID.isEmpty else {
            throw EmulatorFailure("MISSING_MFA_ENROLLMENT_ID")
        }
        let verification = try Self.totpVerification(fields)
        return try state.withLock { state throws(EmulatorFailure) in
            let now = clock()
            let (pending, signedIn) = try pendingSignIn(credential, in: state)
            var account = signedIn
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard let index = account.secondFactors.firstIndex(where: { $0.enrollmentID == enrollmentID }) else {
                throw EmulatorFailure("MFA_ENROLLMENT_NOT_FOUND")
            }
            guard case .totp(let secret, let lastUsedStep) = account.secondFactors[index].kind else {
                throw EmulatorFailure("INVALID_ARGUMENT : MFA provider not supported!")
            }
            guard let step = Self.acceptedStep(of: verification.code, secret: secret, after: lastUsedStep, at: now) else {
                throw EmulatorFailure("INVALID_CODE")
            }
            account.secondFactors[index].kind = .totp(secret: secret, lastUsedStep: step)
            account.lastLoginAt = now.milliseconds
            state.accounts[account.localId] = account
            state.pendingSignIns[credential] = nil
            let used = RefreshToken.SecondFactorUse(identifier: enrollmentID, provider: "totp")
            return issueTokens(for: account, provider: pending.provider, secondFactor: used, now: now, in: &state).signInFields
        }
    }

    /// `totpVerificationInfo`: its code (required) and session.
    private static func totpVerification(_ fields: RequestFields) throws(EmulatorFailure) -> (code: String, sessionInfo: String?) {
        guard let info = fields.values["totpVerificationInfo"] as? [String: Any] else {
            throw EmulatorFailure("INVALID_ARGUMENT : MFA provider not supported!")
        }
        guard let code = info["verificationCode"] as? String, !code.isEmpty else { throw EmulatorFailure("MISSING_CODE") }
        guard code.count <= 16 else { throw EmulatorFailure("INVALID_CODE") }
        return (code, info["sessionInfo"] as? String)
    }

    /// The time step whose TOTP of `secret` `code` is: now, or the step just before or after (clock skew), and
    /// later than `lastUsed`; `nil` when none is.
    private static func acceptedStep(of code: String, secret: [UInt8], after lastUsed: Int64, at now: Date) -> Int64? {
        [-30.0, 0, 30].lazy.map { now.addingTimeInterval($0) }.first { time in
            time.seconds / 30 > lastUsed && TOTP.code(secret: secret, at: time) == code
        }.map { $0.seconds / 30 }
    }
}
