extension AuthEmulator {
    /// A phone verification code the emulator made instead of sending an SMS, as Firebase's Auth emulator lists them
    /// (`GET /emulator/v1/projects/<project>/verificationCodes`): give ``code`` to the app, which holds ``sessionInfo``.
    public struct VerificationCode: Hashable, Sendable {
        /// What the code was sent for, which firebase-tools' printed line names.
        public enum Purpose: String, Hashable, Sendable {
            /// `accounts:sendVerificationCode`: a phone sign-in, link or reauthentication.
            case signIn
            /// `mfaEnrollment:start`: enrolling the number as an SMS second factor.
            case multiFactorEnrollment
            /// `mfaSignIn:start`: the SMS second factor of a sign-in.
            case multiFactorSignIn
        }

        /// The number the SMS would have gone to, E.164.
        public var phoneNumber: String
        /// The six digits.
        public var code: String
        /// The verification ID the app was answered with.
        public var sessionInfo: String
        /// What the code was sent for.
        public var purpose: Purpose

        public init(phoneNumber: String, code: String, sessionInfo: String, purpose: Purpose = .signIn) {
            self.phoneNumber = phoneNumber
            self.code = code
            self.sessionInfo = sessionInfo
            self.purpose = purpose
        }

        /// The line firebase-tools' emulator prints instead of sending the SMS, for example
        /// `To verify the phone number +15555550100, use the code 123456.`
        public var message: String {
            switch purpose {
            case .signIn: "To verify the phone number \(phoneNumber), use the code \(code)."
            case .multiFactorEnrollment: "To enroll MFA with \(phoneNumber), use the code \(code)."
            case .multiFactorSignIn: "To sign in with MFA using \(phoneNumber), use the code \(code)."
            }
        }

        /// The fields of the code list's entries.
        var listFields: [String: Any] { ["code": code, "phoneNumber": phoneNumber, "sessionInfo": sessionInfo] }
    }

    /// The phone verification codes not yet used, oldest first: what Firebase's emulator lists at
    /// `/emulator/v1/projects/<project>/verificationCodes` (a used code leaves the list).
    public var verificationCodes: [VerificationCode] { service.verificationCodes }

    /// Makes every phone verification code made so far expired: using one answers `SESSION_EXPIRED`, as Firebase
    /// answers a code past its lifetime (firebase-tools' codes never expire; this lets a test see the error).
    public func expireVerificationCodes() { service.expireVerificationCodes() }
}
