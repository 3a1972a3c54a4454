import Dispatch

/// The state of a multi-factor step, as Firebase's `MultiFactorSession`: for a sign-in, the proof that the
/// first factor passed; for an enrollment, the signed-in user's ID token. Opaque.
public final class MultiFactorSession: Sendable {
    enum Kind: Sendable {
        /// A sign-in's first factor (`mfaPendingCredential`).
        case signIn(pendingCredential: String)
        /// An enrollment of `user`, with a current ID token of theirs.
        case enrollment(user: User, idToken: String)
    }

    let kind: Kind
    /// Where completion handlers of calls with this session run: the callback queue of its `Auth`.
    let callbackQueue: DispatchQueue

    init(pendingCredential: String, callbackQueue: DispatchQueue) {
        kind = .signIn(pendingCredential: pendingCredential)
        self.callbackQueue = callbackQueue
    }

    init(enrolling user: User, idToken: String) {
        kind = .enrollment(user: user, idToken: idToken)
        callbackQueue = user.callbackQueue
    }

    /// The sign-in's pending credential, or `nil` for an enrollment.
    var pendingCredential: String? {
        if case .signIn(let credential) = kind { return credential }
        return nil
    }
}
