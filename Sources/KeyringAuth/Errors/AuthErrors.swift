/// Firebase's error domain and `userInfo` keys, spelled as in Firebase's Swift SDK
/// (`AuthErrors.domain`, `AuthErrors.userInfoNameKey`, …).
public enum AuthErrors {
    /// The domain of every ``AuthError`` as an `NSError`: `FIRAuthErrorDomain`.
    public static let domain = "FIRAuthErrorDomain"
    /// The `userInfo` key of the code's short string (``AuthErrorCode/userInfoName``):
    /// `FIRAuthErrorUserInfoNameKey`.
    public static let userInfoNameKey = "FIRAuthErrorUserInfoNameKey"
    /// Firebase's `userInfo` key for the email address of an existing account:
    /// `FIRAuthErrorUserInfoEmailKey`; set from ``AuthError/email``.
    public static let userInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
    /// Firebase's `userInfo` key for an updated credential: `FIRAuthErrorUserInfoUpdatedCredentialKey`.
    /// Set from ``AuthError/updatedCredential``.
    public static let userInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"
    /// Firebase's `userInfo` key for the resolver of a sign-in that needs a second factor:
    /// `FIRAuthErrorUserInfoMultiFactorResolverKey`.
    public static let userInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"
}

// The same names as the globals Firebase's `FIRAuthErrors.h` exports to Swift, so that ported code such as
// `(error as NSError).domain == AuthErrorDomain` builds as it is.

/// ``AuthErrors/domain``: `FIRAuthErrorDomain`.
public let AuthErrorDomain = AuthErrors.domain
/// ``AuthErrors/userInfoNameKey``: `FIRAuthErrorUserInfoNameKey`.
public let AuthErrorUserInfoNameKey = AuthErrors.userInfoNameKey
/// ``AuthErrors/userInfoEmailKey``: `FIRAuthErrorUserInfoEmailKey`.
public let AuthErrorUserInfoEmailKey = AuthErrors.userInfoEmailKey
/// ``AuthErrors/userInfoUpdatedCredentialKey``: `FIRAuthErrorUserInfoUpdatedCredentialKey`.
public let AuthErrorUserInfoUpdatedCredentialKey = AuthErrors.userInfoUpdatedCredentialKey
/// ``AuthErrors/userInfoMultiFactorResolverKey``: `FIRAuthErrorUserInfoMultiFactorResolverKey`.
public let AuthErrorUserInfoMultiFactorResolverKey = AuthErrors.userInfoMultiFactorResolverKey
