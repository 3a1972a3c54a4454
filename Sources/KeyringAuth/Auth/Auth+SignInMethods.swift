// How an address's account signs in: Firebase's `fetchSignInMethods(forEmail:)`, deprecated by Firebase, through the
// backend's `accounts:createAuthUri`.
extension Auth {
    /// The ways the account of `email` signs in, as Firebase's `fetchSignInMethods(forEmail:)`: `password`,
    /// `emailLink`, or a provider's ID (`google.com`); none for an address of no account. A project that protects
    /// against email enumeration (Firebase's default for new projects) answers an empty list whatever the address,
    /// as the emulator does with that protection on.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidEmail``, ``AuthErrorCode/missingEmail``, or a network error.
    @available(
        *, deprecated,
        message: "`fetchSignInMethods` is deprecated and will be removed in a future release. This method returns an empty list when Email Enumeration Protection is enabled."
    )
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        try await signInMethods(forEmail: email)
    }

    /// ``fetchSignInMethods(forEmail:)`` with a completion handler, called on the callback queue.
    @available(
        *, deprecated,
        message: "`fetchSignInMethods` is deprecated and will be removed in a future release. This method returns an empty list when Email Enumeration Protection is enabled."
    )
    public func fetchSignInMethods(forEmail email: String, completion: @escaping @Sendable ([String]?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.signInMethods(forEmail: email) }
    }

    /// ``fetchSignInMethods(forEmail:)``, for this package's own tools (the broker), without Firebase's deprecation.
    package func signInMethods(forEmail email: String) async throws(AuthError) -> [String] {
        try Self.checkEmail(email)
        // Firebase's Apple SDK sends this continue URI; only a web page's flow would follow it.
        return try await configuration.backend.signInMethods(forEmail: email, continueURI: "http://www.google.com/", context: requestContext)
    }
}
