/// The state of a multi-factor step, as Firebase's `MultiFactorSession`: for a sign-in, the proof that the
/// first factor passed. Opaque.
public final class MultiFactorSession: Sendable {
    /// The first factor's pending credential (`mfaPendingCredential`).
    let pendingCredential: String

    init(pendingCredential: String) { self.pendingCredential = pendingCredential }
}
