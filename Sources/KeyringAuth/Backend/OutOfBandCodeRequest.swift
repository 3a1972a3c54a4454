/// A request for an email action code (`accounts:sendOobCode`): what the code is for, who it goes to, and the
/// link's settings. The backend mails the code (the emulator records it instead).
package struct OutOfBandCodeRequest: Sendable {
    /// What the code does, in Identity Toolkit's request types.
    package enum Kind: String, Sendable, CaseIterable {
        /// A password reset for `email`.
        case passwordReset = "PASSWORD_RESET"
        /// A verification of the email address of the account of `idToken`.
        case verifyEmail = "VERIFY_EMAIL"
        /// A sign-in link for `email`.
        case emailSignIn = "EMAIL_SIGNIN"
        /// A verification of `newEmail`, which then replaces the address of the account of
        /// `idToken`.
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    }

    package var kind: Kind
    /// The address the code goes to (password reset, sign-in link).
    package var email: String?
    /// The ID token of the user the code is for (email verification, address change).
    package var idToken: String?
    /// The new address (address change).
    package var newEmail: String?
    /// The link's settings, as `accounts:sendOobCode` fields (`continueUrl`, `canHandleCodeInApp`, `linkDomain`, …).
    package var settingsFields: [String: any Sendable]

    package init(kind: Kind, email: String? = nil, idToken: String? = nil, newEmail: String? = nil, settings: ActionCodeSettings? = nil) {
        self.kind = kind
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.settingsFields = settings?.requestFields ?? [:]
    }
}
