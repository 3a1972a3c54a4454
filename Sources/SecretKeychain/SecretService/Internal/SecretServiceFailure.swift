/// Why a call failed, before it is told to the user as a ``KeychainError``.
enum SecretServiceFailure: Error {
    /// The call returned a `GError`.
    case glib(GLibError, call: SecretServiceCall)
    /// The call's deadline passed and it was cancelled.
    case expired(call: SecretServiceCall, limit: Duration)
    /// The store already knows what to tell the user.
    case keychain(KeychainError)
}

extension SecretServiceFailure {
    /// The failure in words, for a diagnosis.
    var detail: String {
        switch self {
        case .glib(let error, _): error.message
        case .keychain(let error): error.description
        case .expired(let call, let limit): "\(call.rawValue) got no answer within \(limit)"
        }
    }
}
