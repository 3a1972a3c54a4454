/// Why a call failed, before it is told to the user as a ``KeychainError``.
enum SecretServiceFailure: Error {
    /// The call returned a `GError`.
    case glib(GLibError, call: SecretServiceCall)
    /// The call's deadline passed and it was cancelled.
    case expired(call: SecretServiceCall, limit: Duration)
    /// The provider lost or refused the client's encrypted session, or returned no secret for an
    /// item that exists (KWallet 5, KDE bug 514194): worth a retry with a fresh session.
    case brokenSession(detail: String)
    /// The store already knows what to tell the user.
    case keychain(KeychainError)
}

extension SecretServiceFailure {
    /// The failure in words, for a diagnosis.
    var detail: String {
        switch self {
        case .glib(let error, _): error.message
        case .keychain(let error): error.description
        case .brokenSession(let detail): detail
        case .expired(let call, let limit): "\(call.rawValue) got no answer within \(limit)"
        }
    }
}

extension SecretServiceFailure {
    /// Whether a fresh session may cure the failure: libsecret's or the provider's word for a
    /// broken session, or a provider refusing to open one (KWallet 5's "Client public key size is
    /// invalid"). A provider that is gone or out of time is not retried here.
    var isBrokenSession: Bool {
        switch self {
        case .brokenSession: true
        case .glib(let error, let call):
            error.isBrokenSession || (call == .openSession && !error.isProviderGone && !error.isDBusTimeout)
        case .expired, .keychain: false
        }
    }
}
