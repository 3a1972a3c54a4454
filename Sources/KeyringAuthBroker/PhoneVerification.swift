import KeyringAuth
import Synchronization

/// A verification whose SMS code Firebase has sent: a step of its caller's (``PendingSteps``), confirmed with the code
/// (`ConfirmPhoneVerification`). A wrong code may be tried again, ``maximumWrongCodes`` times in all; then it ends.
final class PhoneVerification: Sendable {
    static let maximumWrongCodes = 5

    /// What a confirmed code does with a number's verification (`purpose` of `StartPhoneVerification`).
    enum Purpose: String, CaseIterable, Sendable {
        case signIn = "sign-in"
        case link
        case reauthenticate
        case update
        case enroll

        /// The purposes any number's verification may be confirmed for: an SMS of a sign-in, a link, a reauthentication
        /// or a number change is the same, as Firebase's credential of a verification ID is.
        var isInterchangeable: Bool { self != .enroll }

        /// Needs a signed-in user when started.
        var needsUser: Bool { self != .signIn }

        static let names = allCases.map(\.rawValue).joined(separator: ", ")
    }

    enum Use: Sendable {
        case number(Purpose)
        /// A sign-in's SMS second factor: its resolver, the scratch `Auth` of a held sign-in, and the sign-in's own step.
        case secondFactor(MultiFactorResolver, held: Auth?, signInHandle: String)
    }

    let verificationID: String
    let use: Use
    private let wrongCodes = Atomic(0)

    init(verificationID: String, use: Use) {
        self.verificationID = verificationID
        self.use = use
    }

    /// Counts a wrong code; answers whether the verification has had its last try.
    func wrongCodeEnds() -> Bool {
        wrongCodes.add(1, ordering: .relaxed).newValue >= Self.maximumWrongCodes
    }

    /// How many tries are left.
    var triesLeft: Int { max(0, Self.maximumWrongCodes - wrongCodes.load(ordering: .relaxed)) }
}
