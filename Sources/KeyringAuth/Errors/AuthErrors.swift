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
}
