/// A sign-in with an identity provider begun by `accounts:createAuthUri` with a `providerId`, held until
/// `accounts:signInWithIdp` finishes it or it expires: what Identity Platform keeps between the two calls
/// (the `state` it puts in the authorization URL, the `sessionId` it answers, where the browser returns).
struct PendingIdpSignIn: Sendable {
    /// The provider's user the person chose or made on the emulator's page.
    struct ChosenUser: Sendable {
        var rawId: String
        var email: String?
        var displayName: String?
        var photoUrl: String?
        var screenName: String?
    }

    /// What the person answered on the page.
    enum Answer: Sendable {
        /// Signed in as `user`; `code` is the one-time code the browser took back to `continueUri`.
        case chose(code: String, user: ChosenUser)
        /// Declined: the browser took `error=access_denied` back.
        case declined
    }

    /// The `state` of the authorization URL, which the browser brings back: the sign-in's key.
    var state: String
    var sessionId: String
    var providerId: String
    /// Where the page sends the browser back (the provider's `redirect_uri`).
    var continueUri: String
    var tenantId: String?
    /// Seconds since 1970.
    var expiresAt: Int64
    /// `nil` until the person answers on the page; once only.
    var answer: Answer?
}
