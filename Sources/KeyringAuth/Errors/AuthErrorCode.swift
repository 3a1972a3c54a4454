import SecretKeychain

/// The kinds of authentication failure, named as Firebase Auth names them where they apply.
public enum AuthErrorCode: String, Sendable, CaseIterable {
    /// Reading or writing the keychain failed; ``AuthError/keychainError`` holds why.
    case keychainError
    /// A `nil` user was passed where a user is required.
    case nullUser
    /// The user belongs to another tenant than this app's.
    case tenantIDMismatch
    /// The identity backend could not be reached, or did not answer in time.
    case networkError
    /// The API key is not valid.
    case invalidAPIKey
    /// The sign-in method is disabled for the project.
    case operationNotAllowed
    /// No user matches.
    case userNotFound
    /// The user's credential expired; they must sign in again.
    case userTokenExpired
    /// The password is wrong.
    case wrongPassword
    /// The email address is malformed.
    case invalidEmail
    /// An email address is required.
    case missingEmail
    /// A password is required.
    case missingPassword
    /// Another account already uses the email address.
    case emailAlreadyInUse
    /// The password is too weak (Firebase's rule: at least 6 characters).
    case weakPassword
    /// The user's token is not valid (for example, issued for another project).
    case invalidUserToken
    /// The user's account is disabled.
    case userDisabled
    /// The credential is malformed or has expired.
    case invalidCredential
    /// Too many requests; wait before trying again.
    case tooManyRequests
    /// The change needs a recent sign-in; sign in again, then retry.
    case requiresRecentLogin
    /// The app's configuration is not usable (for example a malformed emulator address).
    case invalidConfiguration
    /// The stored user record cannot be read; it was left as it is.
    case corruptStoredUser
    /// The app's saved access-group choice (a file outside the keychain, see ``AccessGroupChoices``)
    /// cannot be read or written; the message names the file.
    case accessGroupChoiceError
    /// The backend answered something unexpected.
    case internalError
}
