import Foundation

/// A second factor enrolled on an account: a TOTP authenticator (Identity Platform's `totpInfo`) or a phone that SMS
/// codes go to (`phoneInfo`).
struct SecondFactor: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// The authenticator's secret, and the last 30-second time step whose code was accepted (at enrollment or a
        /// sign-in): a code is accepted once (RFC 6238, section 5.2), so one that finished a sign-in cannot finish
        /// another.
        case totp(secret: [UInt8], lastUsedStep: Int64)
        /// The phone number, E.164.
        case phone(String)
    }

    var enrollmentID: String
    var displayName: String?
    /// Milliseconds since 1970.
    var enrolledAt: Int64
    var kind: Kind

    /// The phone number of an SMS factor.
    var phoneNumber: String? {
        if case .phone(let number) = kind { number } else { nil }
    }

    /// An `mfaInfo` entry as `accounts:lookup` lists it: an SMS factor's number in full (`phoneInfo` and
    /// `unobfuscatedPhoneInfo`, as firebase-tools lists them), never a TOTP secret.
    var infoFields: [String: Any] { fields(obfuscated: false) }

    /// An `mfaInfo` entry as a first factor's answer lists it (`mfaPendingCredential`): an SMS factor's number with
    /// all but its last four digits hidden, as Identity Platform hides them before the second factor.
    var pendingInfoFields: [String: Any] { fields(obfuscated: true) }

    private func fields(obfuscated: Bool) -> [String: Any] {
        var fields: [String: Any] = ["mfaEnrollmentId": enrollmentID, "enrolledAt": Self.timestamp(enrolledAt)]
        switch kind {
        case .totp: fields["totpInfo"] = [String: Any]()
        case .phone(let number):
            fields["phoneInfo"] = obfuscated ? Self.obfuscated(number) : number
            if !obfuscated { fields["unobfuscatedPhoneInfo"] = number }
        }
        fields["displayName"] = displayName
        return fields
    }

    /// `+15555550100` → `+*******0100`: every digit but the last four replaced by `*`, as firebase-tools writes it.
    static func obfuscated(_ number: String) -> String {
        var digits = 0
        return String(number.reversed().map { character -> Character in
            guard character.isASCII, character.isNumber else { return character }
            digits += 1
            return digits > 4 ? "*" : character
        }.reversed())
    }

    /// RFC 3339 with milliseconds, as Identity Toolkit writes `enrolledAt` (`2024-05-06T07:08:09.123Z`); the
    /// milliseconds are written from the number, not a floating-point date, so a time read back writes the same.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let text = formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
        let fraction = milliseconds - seconds * 1000
        return text.dropLast() + "." + String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0) + String(fraction) + "Z"
    }

    /// The milliseconds of an RFC 3339 time (`…T…Z` or with an offset, any fraction of a second); `nil` for other text.
    static func milliseconds(ofTimestamp text: String) -> Int64? {
        guard text.utf8.count <= 64 else { return nil }
        var whole = text
        var fraction: Int64 = 0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return nil }
            fraction = Int64(String(digits.prefix(3)).padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
            whole = String(text[..<dot]) + String(text[digits.endIndex...])
        }
        guard let date = ISO8601DateFormatter().date(from: whole) else { return nil }
        return Int64(date.timeIntervalSince1970) * 1000 + fraction
    }
}

/// A factor as an export writes it and an import (this emulator's file, Firebase's `accounts.json`, or the Admin API's
/// `batchCreate`) reads it: Identity Platform's `mfaInfo` entry. An SMS factor is `phoneInfo` (and
/// `unobfuscatedPhoneInfo`, as firebase-tools writes it); a TOTP factor's `totpInfo` here also holds the secret,
/// without which an imported factor could never be used.
struct ExportedSecondFactor: Codable {
    var mfaEnrollmentId: String?
    var displayName: String?
    var enrolledAt: String?
    var totpInfo: TOTPInfo?
    var phoneInfo: String?
    var unobfuscatedPhoneInfo: String?

    struct TOTPInfo: Codable {
        /// Base32, as `mfaEnrollment:start` gives it to the app.
        var sharedSecretKey: String?
    }

    init(_ factor: SecondFactor) {
        mfaEnrollmentId = factor.enrollmentID
        displayName = factor.displayName
        enrolledAt = SecondFactor.timestamp(factor.enrolledAt)
        switch factor.kind {
        case .totp(let secret, _): totpInfo = TOTPInfo(sharedSecretKey: TOTP.base32(secret))
        case .phone(let number):
            phoneInfo = number
            unobfuscatedPhoneInfo = number
        }
    }

    /// The factor, or why it cannot be imported (firebase-tools' `batchCreate` messages).
    func factor(now: Date) throws(EmulatorFailure) -> SecondFactor {
        let kind: SecondFactor.Kind
        if let number = phoneInfo ?? unobfuscatedPhoneInfo {
            guard EmulatorService.isPhoneNumber(number) else { throw EmulatorFailure("Phone number format is invalid") }
            kind = .phone(number)
        } else if let totpInfo {
            guard let key = totpInfo.sharedSecretKey, let secret = TOTP.base32Decoded(key), (10...64).contains(secret.count) else {
                throw EmulatorFailure("INVALID_ARGUMENT : a TOTP second factor needs totpInfo.sharedSecretKey (base32, 10 to 64 bytes)")
            }
            kind = .totp(secret: secret, lastUsedStep: -1)
        } else {
            throw EmulatorFailure("Second factor not supported.")
        }
        if let id = mfaEnrollmentId, id.isEmpty || id.count > 128 { throw EmulatorFailure("INVALID_ARGUMENT : mfaEnrollmentId is malformed") }
        if let name = displayName, name.count > 256 { throw EmulatorFailure("INVALID_ARGUMENT : displayName is too long") }
        let enrolled = try enrolledAt.map { (text) throws(EmulatorFailure) -> Int64 in
            guard let milliseconds = SecondFactor.milliseconds(ofTimestamp: text) else {
                throw EmulatorFailure("INVALID_ARGUMENT : enrolledAt is not an RFC 3339 time")
            }
            return milliseconds
        }
        return SecondFactor(
            enrollmentID: mfaEnrollmentId ?? EmulatorAccount.randomID(length: 28), displayName: displayName,
            enrolledAt: enrolled ?? now.milliseconds, kind: kind)
    }

    /// The factors of an import's `mfaInfo`, at most ``EmulatorService/maximumSecondFactors``, with no enrollment ID twice.
    static func factors(_ entries: [ExportedSecondFactor], now: Date) throws(EmulatorFailure) -> [SecondFactor] {
        guard entries.count <= EmulatorService.maximumSecondFactors else {
            throw EmulatorFailure("SECOND_FACTOR_LIMIT_EXCEEDED")
        }
        let given = entries.compactMap(\.mfaEnrollmentId)
        guard Set(given).count == given.count else { throw EmulatorFailure("Enrollment id already exists.") }
        return try entries.map { (entry) throws(EmulatorFailure) in try entry.factor(now: now) }
    }
}

extension SecondFactor {
    /// The SMS factors of an `mfaInfo` list given to `accounts:signUp` or the Admin API's create (`generatingIDs`:
    /// any `mfaEnrollmentId` is replaced) or update (`mfa.enrollments`, each entry naming its own), as firebase-tools
    /// takes them: each needs a valid `phoneInfo` (`INVALID_MFA_PHONE_NUMBER`), a later entry with a number already
    /// listed is dropped, and no ID may be given twice (`DUPLICATE_MFA_ENROLLMENT_ID`). Beyond firebase-tools, an
    /// update's entry without `phoneInfo` that names one of `existing`'s TOTP factors keeps that factor.
    static func requested(
        _ entries: [RequestFields], generatingIDs: Bool, existing: [SecondFactor] = [], now: Date
    ) throws(EmulatorFailure) -> [SecondFactor] {
        var factors: [SecondFactor] = []
        var numbers: Set<String> = []
        var ids: Set<String> = []
        for entry in entries {
            let id = try entry.string("mfaEnrollmentId")
            let displayName = try entry.string("displayName")
            if let displayName, displayName.count > 256 { throw EmulatorFailure("INVALID_ARGUMENT : displayName is too long") }
            if !generatingIDs, !entry.has("phoneInfo"), entry.has("totpInfo"),
                var kept = existing.first(where: { $0.enrollmentID == id && $0.phoneNumber == nil })
            {
                guard ids.insert(kept.enrollmentID).inserted else { throw EmulatorFailure("DUPLICATE_MFA_ENROLLMENT_ID") }
                if entry.has("displayName") { kept.displayName = displayName }
                factors.append(kept)
                continue
            }
            guard let number = try entry.string("phoneInfo"), EmulatorService.isPhoneNumber(number) else {
                throw EmulatorFailure("INVALID_MFA_PHONE_NUMBER : Invalid format.")
            }
            guard numbers.insert(number).inserted else { continue }
            let enrollmentID: String
            if generatingIDs {
                enrollmentID = EmulatorAccount.randomID(length: 28)
            } else {
                guard let id, !id.isEmpty else { throw EmulatorFailure("INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.") }
                guard id.count <= 128 else { throw EmulatorFailure("INVALID_MFA_ENROLLMENT_ID : at most 128 characters") }
                enrollmentID = id
            }
            guard ids.insert(enrollmentID).inserted else { throw EmulatorFailure("DUPLICATE_MFA_ENROLLMENT_ID") }
            let enrolledAt = try entry.string("enrolledAt").map { (text) throws(EmulatorFailure) -> Int64 in
                guard let milliseconds = milliseconds(ofTimestamp: text) else {
                    throw EmulatorFailure("INVALID_ARGUMENT : enrolledAt is not an RFC 3339 time")
                }
                return milliseconds
            }
            factors.append(SecondFactor(
                enrollmentID: enrollmentID, displayName: displayName, enrolledAt: enrolledAt ?? now.milliseconds, kind: .phone(number)))
        }
        guard factors.count <= EmulatorService.maximumSecondFactors else { throw EmulatorFailure("SECOND_FACTOR_LIMIT_EXCEEDED") }
        return factors
    }
}
