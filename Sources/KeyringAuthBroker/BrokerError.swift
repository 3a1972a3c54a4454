import KeyringAuth

/// An error the broker answers a call with: a D-Bus error name under `io.github.keyringauth.Broker1.Error`
/// and a message that says what to do.
struct BrokerError: Error, Equatable, CustomStringConvertible {
    /// The closed set of error names a client can match.
    enum Kind: String, CaseIterable, Sendable {
        /// The caller may not use the access group or scope it named.
        case accessDenied = "AccessDenied"
        /// An argument is missing, malformed, or too long.
        case invalidArgument = "InvalidArgument"
        /// Nobody is signed in where the call needs a user.
        case notSignedIn = "NotSignedIn"
        /// The Secret Service cannot be used (none running, locked, a failure).
        case keychainUnavailable = "KeychainUnavailable"
        /// Firebase (or the emulator) refused or could not be reached; the message starts with Firebase's error name.
        case backend = "Backend"
        /// Anything else.
        case failed = "Failed"
        /// A sign-in met the account's second factor: ``secondFactor`` says how to finish it.
        case secondFactorRequired = "SecondFactorRequired"
    }

    /// What finishes a sign-in that met a second factor, sent as the error's further arguments (`s handle`,
    /// `aa{sv} factors`) after its message.
    struct SecondFactor: Equatable, Sendable {
        let handle: String
        let factors: [[String: GVariants.Value]]
    }

    var kind: Kind
    var message: String
    var secondFactor: SecondFactor?

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `SecondFactorRequired` for the sign-in whose step is `handle`, with the account's `factors`.
    static func secondFactorRequired(handle: String, factors: [MultiFactorInfo]) -> BrokerError {
        let names = factors.map { "\($0.factorID) \(BrokerArguments.quoted($0.displayName ?? "")) (uid \($0.uid))" }.joined(separator: ", ")
        var error = BrokerError(.secondFactorRequired, "ERROR_SECOND_FACTOR_REQUIRED: The account has a second factor; finish the sign-in "
            + "with ResolveSignInWithTOTP, handle \(handle), a factor's uid and its authenticator app's code, or for an SMS factor with "
            + "StartPhoneSecondFactor and ConfirmPhoneVerification, within five minutes. "
            + "Factors: \(names).")
        error.secondFactor = SecondFactor(handle: handle, factors: factors.map(UserDictionary.values(of:)))
        return error
    }

    /// For example `io.github.keyringauth.Broker1.Error.AccessDenied`.
    var dbusName: String { "\(BrokerInterface.name).Error.\(kind.rawValue)" }

    var description: String { "\(dbusName): \(message)" }
}
