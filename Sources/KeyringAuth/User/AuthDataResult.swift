import Foundation

/// What a sign-in, link or reauthentication returns, as Firebase's `AuthDataResult`.
public struct AuthDataResult: Sendable {
    /// The signed-in user.
    public let user: User
    /// The sign-in method, the identity provider's profile, and whether the account is new.
    public let additionalUserInfo: AdditionalUserInfo?
    /// The identity provider's credential as the service returned it, after a sign-in, link or
    /// reauthentication through a provider; `nil` for the other methods.
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo? = nil, credential: OAuthCredential? = nil) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
    }
}
