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
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// For example `io.github.keyringauth.Broker1.Error.AccessDenied`.
    var dbusName: String { "\(BrokerInterface.name).Error.\(kind.rawValue)" }

    var description: String { "\(dbusName): \(message)" }
}
