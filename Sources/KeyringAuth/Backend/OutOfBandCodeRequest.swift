/// A request for an email action code (`accounts:sendOobCode`): what the code is for, who it goes to, and the
/// link's settings. The backend mails the code (the emulator records it instead).
public struct OutOfBandCodeRequest: Sendable {
    /// What the code does, in Identity Toolkit's request types.
    public enum Kind: String, Sendable, CaseIterable {
        /// A password reset for ``OutOfBandCodeRequest/email``.
        case passwordReset = "PASSWORD_RESET"
        /// A verification of the email address of the account of ``OutOfBandCodeRequest/idToken``.
        case verifyEmail = "VERIFY_EMAIL"
        /// A sign-in link for ``OutOfBandCodeRequest/email``.
        case emailSignIn = "EMAIL_SIGNIN"
        /// A verification of ``OutOfBandCodeRequest/newEmail``, which then replaces the address of the account of
        /// ``OutOfBandCodeRequest/idToken``.
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    }

    public var kind: Kind
    /// The address the code goes to (password reset, sign-in link).
    public var email: String?
    /// The ID token of the user the code is for (email verification, address change).
    public var idToken: String?
    /// The new address (address change).
    public var newEmail: String?
    /// The link's settings, as `accounts:sendOobCode` fields (`continueUrl`, `canHandleCodeInApp`, `linkDomain`, …).
    public var settingsFields: [String: any Sendable]

    public init(kind: Kind, email: String? = nil, idToken: String? = nil, newEmail: String? = nil, settings: ActionCodeSettings? = nil) {
        self.kind = kind
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.settingsFields = settings?.requestFields ?? [:]
    }
}
