import Foundation

/// What a backend answers for a first factor of an account with second factors: the pending credential
/// and the factors to choose from. ``Auth`` turns it into a ``MultiFactorResolver``.
package struct SecondFactorChallenge: Hashable, Sendable {
    /// One enrolled factor (`mfaInfo`).
    package struct Factor: Hashable, Sendable {
        package var enrollmentID: String
        package var displayName: String?
        package var enrolledAt: Date
        /// `totp` or `phone`.
        package var factorID: String
        /// A phone factor's number (`phoneInfo`), masked in a sign-in's list.
        package var phoneNumber: String?

        package init(enrollmentID: String, displayName: String?, enrolledAt: Date, factorID: String, phoneNumber: String? = nil) {
            self.enrollmentID = enrollmentID
            self.displayName = displayName
            self.enrolledAt = enrolledAt
            self.factorID = factorID
            self.phoneNumber = phoneNumber
        }

        var info: MultiFactorInfo {
            MultiFactorInfo.make(uid: enrollmentID, displayName: displayName, enrollmentDate: enrolledAt, factorID: factorID, phoneNumber: phoneNumber)
        }
    }

    package var pendingCredential: String
    package var factors: [Factor]

    package init(pendingCredential: String, factors: [Factor]) {
        self.pendingCredential = pendingCredential
        self.factors = factors
    }

    /// The error a backend throws for it.
    package var error: AuthError {
        var error = AuthError(
            .secondFactorRequired,
            "This account needs a second factor to finish signing in: the error's multiFactorResolver finishes it with "
                + "the code of one of its hints (an authenticator app's, or an SMS code). Nothing was stored.")
        error.secondFactorChallenge = self
        return error
    }
}
