import Foundation

/// A second factor enrolled on an account, as Firebase's `MultiFactorInfo`: a hint of a
/// ``MultiFactorResolver``. An SMS factor is a ``PhoneMultiFactorInfo``.
/// (`@unchecked Sendable`: it has a subclass, and every stored property is a constant.)
public class MultiFactorInfo: @unchecked Sendable, CustomStringConvertible {
    /// The enrollment's ID (`mfaEnrollmentId`), for ``TOTPMultiFactorGenerator/assertionForSignIn(withEnrollmentID:oneTimePassword:)``.
    public let uid: String
    /// The name the user gave the factor when enrolling it.
    public let displayName: String?
    /// When the factor was enrolled.
    public let enrollmentDate: Date
    /// `totp` (``TOTPMultiFactorID``) or `phone` (``PhoneMultiFactorID``).
    public let factorID: String

    init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String) {
        self.uid = uid
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.factorID = factorID
    }

    /// A hint made from its parts: a ``PhoneMultiFactorInfo`` for a phone factor with its number.
    static func make(uid: String, displayName: String?, enrollmentDate: Date, factorID: String, phoneNumber: String?) -> MultiFactorInfo {
        if factorID == PhoneMultiFactorID, let phoneNumber {
            return PhoneMultiFactorInfo(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, phoneNumber: phoneNumber)
        }
        return MultiFactorInfo(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: factorID)
    }

    /// The phone number of an SMS factor (masked, as Firebase lists it to a sign-in), else `nil`.
    var enrolledPhoneNumber: String? { (self as? PhoneMultiFactorInfo)?.phoneNumber }

    public var description: String { "MultiFactorInfo(uid: \(String(reflecting: uid)), factorID: \(factorID))" }
}

/// An SMS second factor, as Firebase's `PhoneMultiFactorInfo`: verified with
/// ``PhoneAuthProvider/verifyPhoneNumber(with:uiDelegate:multiFactorSession:)``.
/// (`@unchecked Sendable`: every stored property is a constant.)
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    /// The factor ID of SMS factors, `phone`, as Firebase's `PhoneMultiFactorInfo.PhoneMultiFactorID`.
    public static let PhoneMultiFactorID = "phone"
    /// The factor ID of authenticator apps, `totp`, as Firebase's `PhoneMultiFactorInfo.TOTPMultiFactorID`.
    public static let TOTPMultiFactorID = "totp"

    /// The factor's number: in a sign-in's hints masked except its last digits (`+*******0100`), as Firebase lists it.
    public let phoneNumber: String

    init(uid: String, displayName: String?, enrollmentDate: Date, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: PhoneMultiFactorInfo.PhoneMultiFactorID)
    }
}

/// Equal when every field is.
extension MultiFactorInfo: Hashable {
    public static func == (lhs: MultiFactorInfo, rhs: MultiFactorInfo) -> Bool {
        (lhs.uid, lhs.displayName, lhs.enrollmentDate, lhs.factorID, lhs.enrolledPhoneNumber)
            == (rhs.uid, rhs.displayName, rhs.enrollmentDate, rhs.factorID, rhs.enrolledPhoneNumber)
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
    /// An SMS factor's number.
    var phoneNumber: String?

    init(_ info: MultiFactorInfo) {
        (uid, displayName, enrollmentDate, factorID) = (info.uid, info.displayName, info.enrollmentDate, info.factorID)
        phoneNumber = info.enrolledPhoneNumber
    }

    var info: MultiFactorInfo {
        MultiFactorInfo.make(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: factorID, phoneNumber: phoneNumber)
    }
}

/// The factor ID of a second factor from an authenticator app, `totp`.
public let TOTPMultiFactorID = "totp"
/// The factor ID of a second factor by SMS, `phone`.
public let PhoneMultiFactorID = "phone"
