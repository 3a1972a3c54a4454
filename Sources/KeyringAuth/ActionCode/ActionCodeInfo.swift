/// What an email action code is for, as Firebase's `ActionCodeInfo`: ``Auth/checkActionCode(_:)`` returns it.
public final class ActionCodeInfo: Sendable, CustomStringConvertible {
    /// What applying the code does.
    public let operation: ActionCodeOperation
    /// The email address the code was sent to; for ``ActionCodeOperation/verifyAndChangeEmail`` and
    /// ``ActionCodeOperation/recoverEmail``, the new address.
    public let email: String
    /// The address being replaced (or recovered), for the email-changing operations.
    public let previousEmail: String?

    /// What a backend answers for a code: its operation, the address it was sent to and, for an address change,
    /// the new address (which becomes ``email``; the one sent to becomes ``previousEmail``).
    public init(operation: ActionCodeOperation, email: String, newEmail: String?) {
        self.operation = operation
        if let newEmail {
            self.email = newEmail
            self.previousEmail = email
        } else {
            self.email = email
            self.previousEmail = nil
        }
    }

    public var description: String {
        "ActionCodeInfo(operation: \(operation), email: \(email)\(previousEmail.map { ", previousEmail: \($0)" } ?? ""))"
    }
}
