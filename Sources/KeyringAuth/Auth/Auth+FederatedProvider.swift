// Signing in with a provider whose page the person completes in the browser, as Firebase's `signIn(with:uiDelegate:)`.
extension Auth {
    /// Signs in with `provider` (an ``OAuthProvider`` of the project's `microsoft.com`, `yahoo.com`, …): its page opens
    /// in the user's browser, then the credential signs in as ``signIn(with:)`` does.
    ///
    /// - Parameters:
    ///   - provider: The provider, for example `OAuthProvider(providerID: "microsoft.com")`.
    ///   - uiDelegate: Unused on Linux: pass `nil`.
    /// - Throws: What ``OAuthProvider/credential(with:)`` and ``signIn(with:)`` throw.
    public func signIn(with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?) async throws -> AuthDataResult {
        try await signIn(with: provider.credential(with: uiDelegate))
    }

    /// ``signIn(with:uiDelegate:)`` with a completion handler, called on the callback queue.
    public func signIn(
        with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?, completion: (@Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete({ result, error in completion?(result, error) }) { () async throws in
            try await self.signIn(with: provider, uiDelegate: uiDelegate)
        }
    }
}

extension User {
    /// Links `provider`'s sign-in to the account, its page opened in the user's browser, as ``link(with:)``.
    ///
    /// - Parameters:
    ///   - provider: The provider, for example `OAuthProvider(providerID: "microsoft.com")`.
    ///   - uiDelegate: Unused on Linux: pass `nil`.
    public func link(with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?) async throws -> AuthDataResult {
        try await link(with: provider.credential(with: uiDelegate))
    }

    /// ``link(with:uiDelegate:)`` with a completion handler, called on the callback queue.
    public func link(
        with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?, completion: (@Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { () async throws in try await self.link(with: provider, uiDelegate: uiDelegate) }
    }

    /// Signs the user in again with `provider`, its page opened in the user's browser, as ``reauthenticate(with:)``.
    ///
    /// - Parameters:
    ///   - provider: The provider, for example `OAuthProvider(providerID: "microsoft.com")`.
    ///   - uiDelegate: Unused on Linux: pass `nil`.
    @discardableResult
    public func reauthenticate(with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?) async throws -> AuthDataResult {
        try await reauthenticate(with: provider.credential(with: uiDelegate))
    }

    /// ``reauthenticate(with:uiDelegate:)`` with a completion handler, called on the callback queue.
    public func reauthenticate(
        with provider: FederatedAuthProvider, uiDelegate: AuthUIDelegate?, completion: (@Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { () async throws in try await self.reauthenticate(with: provider, uiDelegate: uiDelegate) }
    }
}
