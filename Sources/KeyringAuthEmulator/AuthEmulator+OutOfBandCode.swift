extension AuthEmulator {
    /// An email action code the emulator made instead of sending an email, as Firebase's Auth emulator lists them
    /// (`GET /emulator/v1/projects/<project>/oobCodes`): follow ``oobLink``, or pass ``oobCode`` to the app.
    public struct OutOfBandCode: Hashable, Sendable {
        /// The address the code is about, as firebase-tools lists it: the one the email would have gone to, but
        /// for an address change (`VERIFY_AND_CHANGE_EMAIL`) the account's current address (the new one is
        /// ``newEmail``), and for `RECOVER_EMAIL` the address it gives back.
        public var email: String
        /// For `VERIFY_AND_CHANGE_EMAIL`, the new address, which the email would have gone to.
        public var newEmail: String?
        /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN`, `VERIFY_AND_CHANGE_EMAIL`, or `RECOVER_EMAIL` (made when
        /// an address is changed without a code, to undo the change).
        public var requestType: String
        /// The code.
        public var oobCode: String
        /// The link the email would have held: the emulator's `/emulator/action` with `mode`, `oobCode`, `apiKey`
        /// and the `continueUrl`, as Firebase's emulator makes it.
        public var oobLink: String

        public init(email: String, newEmail: String? = nil, requestType: String, oobCode: String, oobLink: String) {
            self.email = email
            self.newEmail = newEmail
            self.requestType = requestType
            self.oobCode = oobCode
            self.oobLink = oobLink
        }

        /// The fields of the code list's entries.
        var listFields: [String: Any] {
            var fields: [String: Any] = ["email": email, "requestType": requestType, "oobCode": oobCode, "oobLink": oobLink]
            fields["newEmail"] = newEmail
            return fields
        }
    }

    /// The email action codes not yet used, oldest first: what Firebase's emulator lists at
    /// `/emulator/v1/projects/<project>/oobCodes` (a used code leaves the list).
    public var outOfBandCodes: [OutOfBandCode] { service.outOfBandCodes }

    /// Makes every email action code made so far expired: using one answers `EXPIRED_OOB_CODE`, as Firebase
    /// does after a code's lifetime (``Configuration/oobCodeLifetime``).
    public func expireOutOfBandCodes() { service.expireOutOfBandCodes() }
}
