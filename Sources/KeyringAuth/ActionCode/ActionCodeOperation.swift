/// What an email action code does, with Firebase's names and raw values.
public enum ActionCodeOperation: Int, Sendable, CustomStringConvertible {
    /// Not a kind this version knows.
    case unknown = 0
    /// Resets the account's password (``Auth/confirmPasswordReset(withCode:newPassword:)``).
    case passwordReset = 1
    /// Verifies the account's email address (``Auth/applyActionCode(_:)``).
    case verifyEmail = 2
    /// Restores the account's previous email address after a change.
    case recoverEmail = 3
    /// Signs in with an email link (``Auth/signIn(withEmail:link:)``).
    case emailLink = 4
    /// Verifies a new email address, then makes it the account's (``Auth/applyActionCode(_:)``).
    case verifyAndChangeEmail = 5
    /// Removes a second factor just added.
    case revertSecondFactorAddition = 6

    /// The operation of a request type (`PASSWORD_RESET`, …) as Identity Toolkit names it, or of a link's
    /// `mode` (`resetPassword`, …) as action links name it.
    init(requestTypeOrMode name: String?) {
        switch name {
        case "PASSWORD_RESET", "resetPassword": self = .passwordReset
        case "VERIFY_EMAIL", "verifyEmail": self = .verifyEmail
        case "RECOVER_EMAIL", "recoverEmail": self = .recoverEmail
        case "EMAIL_SIGNIN", "signIn": self = .emailLink
        case "VERIFY_AND_CHANGE_EMAIL", "verifyAndChangeEmail": self = .verifyAndChangeEmail
        case "REVERT_SECOND_FACTOR_ADDITION", "revertSecondFactorAddition": self = .revertSecondFactorAddition
        default: self = .unknown
        }
    }

    /// `passwordReset`, `verifyEmail`, …: the case's name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .passwordReset: "passwordReset"
        case .verifyEmail: "verifyEmail"
        case .recoverEmail: "recoverEmail"
        case .emailLink: "emailLink"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .revertSecondFactorAddition: "revertSecondFactorAddition"
        }
    }
}
