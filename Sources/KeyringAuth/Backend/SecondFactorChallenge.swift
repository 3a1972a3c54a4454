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

        package init(enrollmentID: String, displayName: String?, enrolledAt: Date, factorID: String) {
            self.enrollmentID = enrollmentID
            self.displayName = displayName
            self.enrolledAt = enrolledAt
            self.factorID = factorID
        }

        var info: MultiFactorInfo {
            MultiFactorInfo(uid: enrollmentID, displayName: displayName, enrollmentDate: enrolledAt, factorID: factorID)
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
                + "the code of one of its hints (an authenticator app's). Nothing was stored.")
        error.secondFactorChallenge = self
        return error
    }
}
