/// Proof of a second factor, as Firebase's `MultiFactorAssertion`: made by ``TOTPMultiFactorGenerator``,
/// passed to ``MultiFactorResolver/resolveSignIn(with:)``.
public class MultiFactorAssertion: @unchecked Sendable {
    /// The kind of factor: ``TOTPMultiFactorID``.
    public let factorID: String

    init(factorID: String) { self.factorID = factorID }
}

/// An authenticator app's code for a TOTP second factor, as Firebase's `TOTPMultiFactorAssertion`.
/// (`@unchecked Sendable`: every stored property is a constant.)
public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    /// The enrollment the code is for (a sign-in).
    let enrollmentID: String?
    let oneTimePassword: String

    init(enrollmentID: String?, oneTimePassword: String) {
        self.enrollmentID = enrollmentID
        self.oneTimePassword = oneTimePassword
        super.init(factorID: TOTPMultiFactorID)
    }
}

/// Makes the assertions of a TOTP second factor, as Firebase's `TOTPMultiFactorGenerator`.
public enum TOTPMultiFactorGenerator {
    /// The assertion that finishes a sign-in with the code the user's authenticator app shows for the
    /// factor `enrollmentID` (a hint's ``MultiFactorInfo/uid``).
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(enrollmentID: enrollmentID, oneTimePassword: oneTimePassword)
    }
}
