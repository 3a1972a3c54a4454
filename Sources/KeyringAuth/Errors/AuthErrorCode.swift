// Each case has one row in `entry` (AuthErrorCode+Table.swift): its name, userInfoName, server messages and how the
// CLI and the broker report it.

/// The kinds of authentication failure, with Firebase Auth's names and integer codes.
///
/// A code Firebase has keeps Firebase's raw value (``networkError`` is `17020`, as
/// `FIRAuthErrorCodeNetworkError`), so `(error as NSError).code == AuthErrorCode.networkError.rawValue`
/// and `AuthErrorCode(rawValue: (error as NSError).code)` work as in Firebase's SDK. Codes Firebase does
/// not have are KeyringAuth's own, from `19001` on, outside the range Firebase uses (`17000`–`18000`).
public enum AuthErrorCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Reading or writing the keychain failed; ``AuthError/keychainError`` holds why.
    case keychainError = 17995
    /// A `nil` user was passed where a user is required.
    case nullUser = 17067
    /// The user belongs to another tenant than this app's.
    case tenantIDMismatch = 17072
    /// The identity backend could not be reached, or did not answer in time.
    case networkError = 17020
    /// The API key is not valid.
    case invalidAPIKey = 17023
    /// The sign-in method is disabled for the project.
    case operationNotAllowed = 17006
    /// No user matches.
    case userNotFound = 17011
    /// The user's credential expired; they must sign in again.
    case userTokenExpired = 17021
    /// The password is wrong.
    case wrongPassword = 17009
    /// The email address is malformed.
    case invalidEmail = 17008
    /// An email address is required.
    case missingEmail = 17034
    /// A password is required. KeyringAuth's own code (Firebase has none).
    case missingPassword = 19001
    /// Another account already uses the email address.
    case emailAlreadyInUse = 17007
    /// The password is too weak (Firebase's rule: at least 6 characters).
    case weakPassword = 17026
    /// The user's token is not valid (for example, issued for another project).
    case invalidUserToken = 17017
    /// The user's account is disabled.
    case userDisabled = 17005
    /// The credential is malformed or has expired.
    case invalidCredential = 17004
    /// Too many requests; wait before trying again.
    case tooManyRequests = 17010
    /// The change needs a recent sign-in; sign in again, then retry.
    case requiresRecentLogin = 17014
    /// The app's configuration is not usable (for example a malformed emulator address).
    /// KeyringAuth's own code (Firebase has none).
    case invalidConfiguration = 19002
    /// The stored user record cannot be read; it was left as it is. KeyringAuth's own code (Firebase has none).
    case corruptStoredUser = 19003
    /// The app's saved access-group choice (a file outside the keychain, see ``AccessGroupChoices``)
    /// cannot be read or written; the message names the file. KeyringAuth's own code (Firebase has none).
    case accessGroupChoiceError = 19004
    /// The custom token is malformed, expired, or not accepted by the project.
    case invalidCustomToken = 17000
    /// The custom token was made for another project (its service account and the API key differ).
    case customTokenMismatch = 17002
    /// An account already uses the credential's email address with another sign-in method; sign in with that
    /// method, then link this credential (``User/link(with:)``).
    case accountExistsWithDifferentCredential = 17012
    /// The user already has a sign-in method of this provider.
    case providerAlreadyLinked = 17015
    /// The user has no sign-in method of this provider to unlink.
    case noSuchProvider = 17016
    /// The credential given to ``User/reauthenticate(with:)`` belongs to another user.
    case userMismatch = 17024
    /// The credential is already linked to another account; the error's ``AuthError/updatedCredential``
    /// signs in to that account.
    case credentialAlreadyInUse = 17025
    /// The provider ID is not one the identity service knows (or not one a credential can have).
    case invalidProviderID = 17071
    /// The request is not supported for a tenant.
    case unsupportedTenantOperation = 17073
    /// The credential's raw nonce is missing or does not match the ID token's hashed nonce.
    case missingOrInvalidNonce = 17094
    /// The email action code has expired.
    case expiredActionCode = 17029
    /// The email action code is malformed, already used, or for another action.
    case invalidActionCode = 17030
    /// The project's email template is not valid.
    case invalidMessagePayload = 17031
    /// The project's email sender is not valid.
    case invalidSender = 17032
    /// The email address cannot receive the email.
    case invalidRecipientEmail = 17033
    /// The action code settings need an iOS bundle ID.
    case missingIosBundleID = 17036
    /// The action code settings need an Android package name.
    case missingAndroidPackageName = 17037
    /// The continue URL's domain is not authorized for the project.
    case unauthorizedDomain = 17038
    /// The continue URL is not a valid URL.
    case invalidContinueURI = 17039
    /// The email needs a continue URL (``ActionCodeSettings/url``).
    case missingContinueURI = 17040
    /// The project requires the new email address to be verified before it replaces the old one
    /// (``User/sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)``).
    case emailChangeNeedsVerification = 17090
    /// A desktop sign-in's port is in use (another sign-in still waiting, or another program).
    case webContextAlreadyPresented = 17057
    /// A desktop sign-in ended without a credential: the user declined in the browser, the time limit passed,
    /// or the task was cancelled.
    case webContextCancelled = 17058
    /// The provider refused the OAuth client ID (or its secret).
    case invalidClientID = 17060
    /// A desktop sign-in could not listen for the browser's redirect.
    case webInternalError = 17062
    /// A desktop sign-in's redirect was refused (another `state`, no code) or carried the provider's error.
    case webSignInUserInteractionFailure = 17063

    // Phone numbers and their app verification (reCAPTCHA), second factors, codes of Apple's platforms only (APNs,
    // Game Center: kept so that ported `switch` statements build), and backend answers Firebase has codes of its own for.
    /// The API key does not allow this app to use Firebase Authentication.
    case appNotAuthorized = 17028
    /// A phone number was needed and none was given.
    case missingPhoneNumber = 17041
    /// A phone number not in E.164 form (`+15555550100`).
    case invalidPhoneNumber = 17042
    /// A phone credential without its SMS code, or a second factor without its code.
    case missingVerificationCode = 17043
    /// A wrong one-time code: an SMS code, or a second factor's code.
    case invalidVerificationCode = 17044
    /// A phone credential without its verification ID.
    case missingVerificationID = 17045
    /// An unknown phone verification ID.
    case invalidVerificationID = 17046
    /// A request that sends an SMS code without app verification (a reCAPTCHA token).
    case missingAppCredential = 17047
    /// A refused app verification (reCAPTCHA token).
    case invalidAppCredential = 17048
    /// The phone verification or second-factor session expired; start again.
    case sessionExpired = 17051
    /// The project's quota (of SMS messages, or of requests) is used up; try again later.
    case quotaExceeded = 17052
    /// No APNs device token could be had (iOS only).
    case missingAppToken = 17053
    /// The app did not forward the push notification to Auth (iOS only).
    case notificationNotForwarded = 17054
    /// Firebase could not verify the app for phone sign-in (iOS only).
    case appNotVerified = 17055
    /// The reCAPTCHA answer was refused, or the verification page answered none.
    case captchaCheckFailed = 17056
    /// App verification failed (iOS only).
    case appVerificationUserInteractionFailure = 17059
    /// A network request of the in-app web view failed (Apple platforms only).
    case webNetworkRequestFailed = 17061
    /// Game Center's local player is not signed in (Apple platforms only).
    case localPlayerNotAuthenticated = 17066
    /// The action code settings' link domain is not a Firebase Hosting domain of the project.
    case invalidHostingLinkDomain = 17214
    /// The credential was refused as malformed or not matching.
    case rejectedCredential = 17075
    /// GameKit is not linked (Apple platforms only).
    case gameKitNotLinked = 17076
    /// The account needs a second factor to sign in.
    case secondFactorRequired = 17078
    /// A second-factor request without its session.
    case missingMultiFactorSession = 17081
    /// A second-factor request without the factor's details.
    case missingMultiFactorInfo = 17082
    /// The second-factor session is not valid.
    case invalidMultiFactorSession = 17083
    /// No enrolled second factor has that ID.
    case multiFactorInfoNotFound = 17084
    /// Only an administrator may do this in this project (for example anonymous sign-up when it is restricted).
    case adminRestrictedOperation = 17085
    /// The action needs a verified email address (for example enrolling a second factor).
    case unverifiedEmail = 17086
    /// That second factor is already enrolled.
    case secondFactorAlreadyEnrolled = 17087
    /// The account has as many second factors as it may.
    case maximumSecondFactorCountExceeded = 17088
    /// The first factor (the sign-in method) cannot be combined with a second factor.
    case unsupportedFirstFactor = 17089
    /// A phone or reCAPTCHA request without the app's client identifier.
    case missingClientIdentifier = 17093
    /// A blocking Cloud Function of the project refused the sign-in or sign-up; the message is its own.
    case blockingCloudFunctionError = 17105
    /// reCAPTCHA Enterprise is not enabled for the project.
    case recaptchaNotEnabled = 17200
    /// A request without the reCAPTCHA token the project requires.
    case missingRecaptchaToken = 17201
    /// The reCAPTCHA token was refused.
    case invalidRecaptchaToken = 17202
    /// The reCAPTCHA action is not one the backend knows.
    case invalidRecaptchaAction = 17203
    /// A reCAPTCHA request without the client type.
    case missingClientType = 17204
    /// A reCAPTCHA request without the reCAPTCHA version.
    case missingRecaptchaVersion = 17205
    /// The reCAPTCHA version is not one the backend accepts.
    case invalidRecaptchaVersion = 17206
    /// The request type is not valid for reCAPTCHA.
    case invalidReqType = 17207
    /// The reCAPTCHA SDK is not linked (Apple platforms only).
    case recaptchaSDKNotLinked = 17208
    /// The project's reCAPTCHA site key was not found.
    case recaptchaSiteKeyMissing = 17209
    /// The reCAPTCHA SDK could not create the action (Apple platforms only).
    case recaptchaActionCreationFailed = 17210
    /// The password does not meet the project's password policy; the message says which rule.
    case passwordDoesNotMeetRequirements = 17211

    /// A JWT (an ID token) cannot be decoded.
    case malformedJWT = 18000
    /// The backend answered something unexpected.
    case internalError = 17999

    /// The case's name, as written in Swift: `networkError`, `corruptStoredUser`, …; stable, for logs and scripts.
    public var name: String { entry.name }

    /// ``name``.
    public var description: String { name }

    /// The code itself, as Firebase's `AuthErrorCode.code` (kept there for Objective-C's sake).
    public var code: AuthErrorCode { self }

    /// The short string Firebase puts under ``AuthErrors/userInfoNameKey`` in the `NSError`'s
    /// `userInfo`: `ERROR_NETWORK_REQUEST_FAILED`, …; KeyringAuth's own codes follow the same form.
    public var userInfoName: String { entry.userInfoName }
}
