import Foundation

/// A second factor enrolled on an account: a TOTP authenticator (Identity Platform's `totpInfo`).
struct SecondFactor: Hashable, Sendable {
    var enrollmentID: String
    var displayName: String?
    /// Milliseconds since 1970.
    var enrolledAt: Int64
    var secret: [UInt8]
    /// The last 30-second time step whose code was accepted (at enrollment or a sign-in): a code is accepted once
    /// (RFC 6238, section 5.2), so a code that just finished a sign-in cannot finish another.
    var lastUsedStep: Int64 = -1

    /// An `mfaInfo` entry, as sign-in and `accounts:lookup` list it (never the secret).
    var infoFields: [String: Any] {
        var fields: [String: Any] = ["mfaEnrollmentId": enrollmentID, "enrolledAt": Self.timestamp(enrolledAt), "totpInfo": [String: Any]()]
        fields["displayName"] = displayName
        return fields
    }

    /// RFC 3339 with milliseconds, as Identity Toolkit writes `enrolledAt`.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

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

// Multi-factor sign-in and enrollment with TOTP (Identity Toolkit v2 `mfaEnrollment:*` and `mfaSignIn:finalize`),
// which Firebase's own emulator does not offer (it has SMS only).
extension EmulatorService {
    static let identityToolkitV2 = "/identitytoolkit.googleapis.com/v2/"
    /// At most this many second factors per account, as Identity Platform.
    static let maximumSecondFactors = 5
    /// How long an enrollment session and a pending sign-in last, in seconds.
    static let secondFactorSessionLifetime: Int64 = 600
    /// Pending enrollments and sign-ins kept at once; the oldest go first.
    static let maximumPendingSecondFactors = 1000

    func routeMultiFactor(_ operation: Substring, _ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        switch operation {
        case "mfaEnrollment:start": return try startEnrollment(fields)
        case "mfaEnrollment:finalize": return try finalizeEnrollment(fields)
        case "mfaEnrollment:withdraw": return try withdrawEnrollment(fields)
        case "mfaSignIn:finalize": return try finalizeSecondFactorSignIn(fields)
        case "mfaSignIn:start":
            throw EmulatorFailure("INVALID_ARGUMENT : mfaSignIn:start is for phone second factors, which this emulator does not offer.")
        default: throw EmulatorFailure("INVALID_ARGUMENT : unknown multi-factor operation \(operation)", status: 404, grpcStatus: "NOT_FOUND")
        }
    }

    /// The reply to a first factor passed by `account`: its tokens, or, when it has second factors, a pending
    /// credential and its `mfaInfo`, without tokens.
    func firstFactorFields(
        for account: EmulatorAccount, provider: String, signInAttributes: String? = nil, now: Date, in state: inout State
    ) -> [String: Any] {
        guard !account.secondFactors.isEmpty else {
            return issueTokens(for: account, provider: provider, signInAttributes: signInAttributes, now: now).signInFields
        }
        let credential = EmulatorAccount.randomID(length: 40)
        Self.keepBounded(&state.pendingSignIns)
        state.pendingSignIns[credential] = PendingSecondFactor(
            uid: account.localId, provider: provider, expires: now.seconds + Self.secondFactorSessionLifetime)
        return ["localId": account.localId, "mfaPendingCredential": credential, "mfaInfo": account.secondFactors.map(\.infoFields)]
    }

    private static func keepBounded<Value>(_ pending: inout [String: Value]) {
        if pending.count >= maximumPendingSecondFactors, let first = pending.keys.first { pending[first] = nil }
    }

    private func startEnrollment(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            // The account first, then the factor, in firebase-tools' order.
            let (account, provider) = try verifySession(token, in: state)
            try Self.checkCanEnroll(account, provider: provider)
            guard fields.values["totpEnrollmentInfo"] != nil else {
                throw EmulatorFailure("INVALID_ARGUMENT : Missing totpEnrollmentInfo (this emulator enrolls TOTP second factors only).")
            }
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

    private static func checkCanEnroll(_ account: EmulatorAccount, provider: String) throws(EmulatorFailure) {
        guard !account.isAnonymous, provider != "anonymous", provider != "custom" else {
            throw EmulatorFailure("UNSUPPORTED_FIRST_FACTOR : A second factor can be enrolled only after a password, email link or identity provider sign-in.")
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
                secret: pending.secret, lastUsedStep: step))
            state.accounts[account.localId] = account
            var reply = issueTokens(for: account, provider: provider, now: now).signInFields
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
            return issueTokens(for: account, provider: provider, now: clock()).signInFields
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
            guard let pending = state.pendingSignIns[credential], pending.expires > now.seconds, var account = state.accounts[pending.uid]
            else { throw EmulatorFailure("INVALID_MFA_PENDING_CREDENTIAL") }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard let index = account.secondFactors.firstIndex(where: { $0.enrollmentID == enrollmentID }) else {
                throw EmulatorFailure("MFA_ENROLLMENT_NOT_FOUND")
            }
            let factor = account.secondFactors[index]
            guard let step = Self.acceptedStep(of: verification.code, secret: factor.secret, after: factor.lastUsedStep, at: now) else {
                throw EmulatorFailure("INVALID_CODE")
            }
            account.secondFactors[index].lastUsedStep = step
            state.accounts[account.localId] = account
            state.pendingSignIns[credential] = nil
            let used = RefreshToken.SecondFactorUse(identifier: enrollmentID, provider: "totp")
            return issueTokens(for: account, provider: pending.provider, secondFactor: used, now: now).signInFields
        }
    }

    /// `totpVerificationInfo`: its code (required) and session.
    private static func totpVerification(_ fields: RequestFields) throws(EmulatorFailure) -> (code: String, sessionInfo: String?) {
        guard let info = fields.values["totpVerificationInfo"] as? [String: Any] else {
            throw EmulatorFailure("INVALID_ARGUMENT : Missing totpVerificationInfo (this emulator verifies TOTP second factors only).")
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

/// A TOTP factor as an export writes it and an import (this emulator's file, or the Admin API's `batchCreate`)
/// reads it: Identity Platform's `mfaInfo` entry, whose `totpInfo` here also holds the factor's secret, without
/// which an imported factor could never be used.
struct ExportedSecondFactor: Codable {
    var mfaEnrollmentId: String?
    var displayName: String?
    var enrolledAt: String?
    var totpInfo: TOTPInfo?
    var phoneInfo: String?

    struct TOTPInfo: Codable {
        /// Base32, as `mfaEnrollment:start` gives it to the app.
        var sharedSecretKey: String?
    }

    init(_ factor: SecondFactor) {
        mfaEnrollmentId = factor.enrollmentID
        displayName = factor.displayName
        enrolledAt = SecondFactor.timestamp(factor.enrolledAt)
        totpInfo = TOTPInfo(sharedSecretKey: TOTP.base32(factor.secret))
    }

    /// The factor, or why it cannot be imported.
    func factor(now: Date) throws(EmulatorFailure) -> SecondFactor {
        guard phoneInfo == nil else { throw EmulatorFailure("INVALID_ARGUMENT : phone second factors are not offered by this emulator") }
        guard let key = totpInfo?.sharedSecretKey, let secret = TOTP.base32Decoded(key), (10...64).contains(secret.count) else {
            throw EmulatorFailure("INVALID_ARGUMENT : a TOTP second factor needs totpInfo.sharedSecretKey (base32, 10 to 64 bytes)")
        }
        if let id = mfaEnrollmentId, id.isEmpty || id.count > 128 { throw EmulatorFailure("INVALID_ARGUMENT : mfaEnrollmentId is malformed") }
        if let name = displayName, name.count > 256 { throw EmulatorFailure("INVALID_ARGUMENT : displayName is too long") }
        let enrolled = try enrolledAt.map { (text) throws(EmulatorFailure) -> Int64 in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
                throw EmulatorFailure("INVALID_ARGUMENT : enrolledAt is not an RFC 3339 time")
            }
            return date.milliseconds
        }
        return SecondFactor(
            enrollmentID: mfaEnrollmentId ?? EmulatorAccount.randomID(length: 20), displayName: displayName,
            enrolledAt: enrolled ?? now.milliseconds, secret: secret)
    }

    /// The factors of an import's `mfaInfo`, at most ``EmulatorService/maximumSecondFactors``.
    static func factors(_ entries: [ExportedSecondFactor], now: Date) throws(EmulatorFailure) -> [SecondFactor] {
        guard entries.count <= EmulatorService.maximumSecondFactors else {
            throw EmulatorFailure("SECOND_FACTOR_LIMIT_EXCEEDED")
        }
        return try entries.map { (entry) throws(EmulatorFailure) in try entry.factor(now: now) }
    }
}
