import Foundation

/// A second factor enrolled on an account, as Firebase's `MultiFactorInfo`: a hint of a
/// ``MultiFactorResolver``.
public final class MultiFactorInfo: Sendable, CustomStringConvertible {
    /// The enrollment's ID (`mfaEnrollmentId`), for ``TOTPMultiFactorGenerator/assertionForSignIn(withEnrollmentID:oneTimePassword:)``.
    public let uid: String
    /// The name the user gave the factor when enrolling it.
    public let displayName: String?
    /// When the factor was enrolled.
    public let enrollmentDate: Date
    /// `totp` (``TOTPMultiFactorID``) or `phone` (``PhoneMultiFactorID``; phone factors are not on Linux).
    public let factorID: String

    init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String) {
        self.uid = uid
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.factorID = factorID
    }

    public var description: String { "MultiFactorInfo(uid: \(String(reflecting: uid)), factorID: \(factorID))" }
}

/// Equal when every field is.
extension MultiFactorInfo: Hashable {
    public static func == (lhs: MultiFactorInfo, rhs: MultiFactorInfo) -> Bool {
        (lhs.uid, lhs.displayName, lhs.enrollmentDate, lhs.factorID) == (rhs.uid, rhs.displayName, rhs.enrollmentDate, rhs.factorID)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uid)
        hasher.combine(factorID)
    }
}

/// A second factor as the stored user record keeps it.
struct StoredSecondFactor: Hashable, Sendable, Codable {
    var uid: String
    var displayName: String?
    var enrollmentDate: Date
    var factorID: String

    init(_ info: MultiFactorInfo) {
        (uid, displayName, enrollmentDate, factorID) = (info.uid, info.displayName, info.enrollmentDate, info.factorID)
    }

    var info: MultiFactorInfo { MultiFactorInfo(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: factorID) }
}

/// The factor ID of a second factor from an authenticator app, `totp`.
public let TOTPMultiFactorID = "totp"
/// The factor ID of a second factor by SMS, `phone` (not on Linux: SMS needs app verification).
public let PhoneMultiFactorID = "phone"
