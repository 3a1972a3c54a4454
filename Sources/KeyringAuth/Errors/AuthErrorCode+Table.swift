extension AuthErrorCode {
    /// How the package's programs report a code: the CLI's exit code, the broker's error name.
    /// Each program switches over every case, with no `default:`.
    package enum Disposition: Sendable, CaseIterable {
        /// The keychain failed: CLI exit 1 (or the keychain error's own), broker `KeychainUnavailable`.
        case keychain
        /// Nobody is signed in: CLI exit 1, broker `NotSignedIn`.
        case noUser
        /// The saved access-group choice cannot be used: CLI exit 1 with a `use-group` hint, broker `Backend`.
        case groupChoice
        /// Failed on this machine (stored state, a desktop sign-in, a token): CLI exit 1, broker `Backend`.
        case localFailure
        /// What the user passed is not usable: CLI exit 2, broker `Backend`.
        case invalidInput
        /// The identity service could not be reached: CLI exit 5 with an emulator hint, broker `Backend`.
        case unreachable
        /// The identity service refused the request: CLI exit 5, broker `Backend`.
        case refused
    }

    /// An Identity Toolkit error message that means the code, and the advice the error's message starts with.
    package struct ServerMessage: Sendable, Hashable {
        /// The message's code, for example `WEAK_PASSWORD`.
        package let message: String
        /// What to do, for example `Choose a password of at least 6 characters.`
        package let advice: String
    }

    /// Everything the package says about a code, in one row of `entry`.
    package struct Entry: Sendable {
        /// The case's name as written in Swift (`name`).
        package let name: String
        /// The `FIRAuthErrorUserInfoNameKey` value (`userInfoName`), for example `ERROR_INVALID_EMAIL`.
        package let userInfoName: String
        /// How the CLI and the broker report it.
        package let disposition: Disposition
        /// The Identity Toolkit messages that mean this code (`ServerErrorCode.table` is made of them).
        package let server: [ServerMessage]

        init(_ name: String, _ userInfoName: String, _ disposition: Disposition, server: KeyValuePairs<String, String> = [:]) {
            self.name = name
            self.userInfoName = userInfoName
            self.disposition = disposition
            self.server = server.map { ServerMessage(message: $0.key, advice: $0.value) }
        }
    }

    /// The code's row: one per case, in declaration order. A new case does not compile without its row.
    package var entry: Entry {
        switch self {
        case .keychainError: Entry("keychainError", "ERROR_KEYCHAIN_ERROR", .keychain)
        case .nullUser: Entry("nullUser", "ERROR_NULL_USER", .noUser)
        case .tenantIDMismatch:
            Entry("tenantIDMismatch", "ERROR_TENANT_ID_MISMATCH", .localFailure, server: [
                "TENANT_ID_MISMATCH": "The user belongs to another tenant than this app.",
            ])
        case .networkError: Entry("networkError", "ERROR_NETWORK_REQUEST_FAILED", .unreachable)
        case .invalidAPIKey:
            Entry("invalidAPIKey", "ERROR_INVALID_API_KEY", .refused, server: [
                "INVALID_API_KEY": "The API key is not valid; copy the Web API key from the Firebase console.",
                "PROJECT_NOT_FOUND": "No project matches the API key; check the app's options.",
                "PROJECT_NUMBER_MISMATCH": "The refresh token belongs to another project than the API key.",
            ])
        case .operationNotAllowed:
            Entry("operationNotAllowed", "ERROR_OPERATION_NOT_ALLOWED", .refused, server: [
                "OPERATION_NOT_ALLOWED": "This sign-in method is disabled; enable it in the Firebase console.",
                "PASSWORD_LOGIN_DISABLED": "Email/password sign-in is disabled; enable it in the Firebase console.",
                "CONFIGURATION_NOT_FOUND": "Authentication is not set up for this project; enable it in the Firebase console.",
            ])
        case .userNotFound:
            Entry("userNotFound", "ERROR_USER_NOT_FOUND", .refused, server: [
                "EMAIL_NOT_FOUND": "No account has this email address; check it or create an account.",
                "USER_NOT_FOUND": "The account no longer exists; sign in again or create an account.",
            ])
        case .userTokenExpired:
            Entry("userTokenExpired", "ERROR_USER_TOKEN_EXPIRED", .refused, server: [
                "TOKEN_EXPIRED": "The user's credential is no longer valid; sign in again.",
            ])
        case .wrongPassword:
            Entry("wrongPassword", "ERROR_WRONG_PASSWORD", .refused, server: [
                "INVALID_PASSWORD": "The password is wrong.",
            ])
        case .invalidEmail:
            Entry("invalidEmail", "ERROR_INVALID_EMAIL", .invalidInput, server: [
                "INVALID_EMAIL": "The email address is malformed.",
                "INVALID_IDENTIFIER": "The email address is malformed.",
            ])
        case .missingEmail:
            Entry("missingEmail", "ERROR_MISSING_EMAIL", .invalidInput, server: [
                "MISSING_EMAIL": "An email address is required.",
            ])
        case .missingPassword:
            Entry("missingPassword", "ERROR_MISSING_PASSWORD", .invalidInput, server: [
                "MISSING_PASSWORD": "A password is required.",
            ])
        case .emailAlreadyInUse:
            Entry("emailAlreadyInUse", "ERROR_EMAIL_ALREADY_IN_USE", .refused, server: [
                "EMAIL_EXISTS": "Another account already uses this email address; sign in instead.",
            ])
        case .weakPassword:
            Entry("weakPassword", "ERROR_WEAK_PASSWORD", .invalidInput, server: [
                "WEAK_PASSWORD": "Choose a password of at least 6 characters.",
            ])
        case .invalidUserToken:
            Entry("invalidUserToken", "ERROR_INVALID_USER_TOKEN", .refused, server: [
                "INVALID_ID_TOKEN": "The user's credential is no longer valid; sign in again.",
                "MISSING_ID_TOKEN": "No ID token was sent; sign in again.",
                "INVALID_REFRESH_TOKEN": "The refresh token is not valid; sign in again.",
                "MISSING_REFRESH_TOKEN": "No refresh token was sent; sign in again.",
            ])
        case .userDisabled:
            Entry("userDisabled", "ERROR_USER_DISABLED", .refused, server: [
                "USER_DISABLED": "An administrator disabled this account.",
            ])
        case .invalidCredential:
            Entry("invalidCredential", "ERROR_INVALID_CREDENTIAL", .refused, server: [
                "INVALID_LOGIN_CREDENTIALS": "The email address or the password is wrong.",
                "INVALID_IDP_RESPONSE": "The identity provider's token is malformed or has expired; sign in with the provider again.",
                "INVALID_PENDING_TOKEN": "The pending credential is malformed or has expired; sign in with the provider again.",
                "INVALID_CREDENTIAL_OR_PROVIDER_ID": "The credential or its provider ID is not valid.",
                "INVALID_TEMPORARY_PROOF": "The phone number's temporary proof is not valid or has expired; verify the number again.",
            ])
        case .tooManyRequests:
            Entry("tooManyRequests", "ERROR_TOO_MANY_REQUESTS", .refused, server: [
                "TOO_MANY_ATTEMPTS_TRY_LATER": "Too many attempts; wait a while and try again.",
            ])
        case .requiresRecentLogin:
            Entry("requiresRecentLogin", "ERROR_REQUIRES_RECENT_LOGIN", .refused, server: [
                "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "This change needs a recent sign-in; sign in again and retry.",
            ])
        case .invalidConfiguration:
            Entry("invalidConfiguration", "ERROR_INVALID_CONFIGURATION", .invalidInput, server: [
                "INVALID_TENANT_ID": "The tenant ID is not valid; check the app's options.",
            ])
        case .corruptStoredUser: Entry("corruptStoredUser", "ERROR_CORRUPT_STORED_USER", .localFailure)
        case .accessGroupChoiceError: Entry("accessGroupChoiceError", "ERROR_ACCESS_GROUP_CHOICE", .groupChoice)
        case .invalidCustomToken:
            Entry("invalidCustomToken", "ERROR_INVALID_CUSTOM_TOKEN", .refused, server: [
                "INVALID_CUSTOM_TOKEN": "The custom token is malformed, expired, or not for this project; mint a new one.",
                "MISSING_CUSTOM_TOKEN": "No custom token was sent; pass the token the app's server minted.",
                "INVALID_CLAIMS": "The custom token's claims are not a JSON object.",
                "FORBIDDEN_CLAIM": "The custom token sets a reserved claim (iss, aud, sub, exp, firebase, …).",
                "CLAIMS_TOO_LARGE": "The custom token's claims exceed 1000 bytes.",
            ])
        case .customTokenMismatch:
            Entry("customTokenMismatch", "ERROR_CUSTOM_TOKEN_MISMATCH", .refused, server: [
                "CREDENTIAL_MISMATCH": "The custom token was minted for another project than the API key's.",
            ])
        case .accountExistsWithDifferentCredential:
            Entry("accountExistsWithDifferentCredential", "ERROR_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL", .refused, server: [
                "NEED_CONFIRMATION":
                    "An account already uses this email address with another sign-in method; sign in with it, then link this credential.",
            ])
        case .providerAlreadyLinked: Entry("providerAlreadyLinked", "ERROR_PROVIDER_ALREADY_LINKED", .localFailure)
        case .noSuchProvider:
            Entry("noSuchProvider", "ERROR_NO_SUCH_PROVIDER", .localFailure, server: [
                "NO_SUCH_PROVIDER": "The account has no sign-in method of this provider.",
            ])
        case .userMismatch: Entry("userMismatch", "ERROR_USER_MISMATCH", .refused)
        case .credentialAlreadyInUse:
            Entry("credentialAlreadyInUse", "ERROR_CREDENTIAL_ALREADY_IN_USE", .refused, server: [
                "FEDERATED_USER_ID_ALREADY_LINKED": "This credential is already linked to another account; sign in with it instead.",
            ])
        case .invalidProviderID:
            Entry("invalidProviderID", "ERROR_INVALID_PROVIDER_ID", .invalidInput, server: [
                "INVALID_PROVIDER_ID": "This provider ID is not enabled or not known to the project.",
            ])
        case .unsupportedTenantOperation:
            Entry("unsupportedTenantOperation", "ERROR_UNSUPPORTED_TENANT_OPERATION", .refused, server: [
                "UNSUPPORTED_TENANT_OPERATION": "This request is not supported for a tenant.",
            ])
        case .missingOrInvalidNonce:
            Entry("missingOrInvalidNonce", "ERROR_MISSING_OR_INVALID_NONCE", .refused, server: [
                "MISSING_OR_INVALID_NONCE": "The raw nonce does not match the ID token's nonce; pass the nonce the sign-in used.",
            ])
        case .expiredActionCode:
            Entry("expiredActionCode", "ERROR_EXPIRED_ACTION_CODE", .refused, server: [
                "EXPIRED_OOB_CODE": "The email action code has expired; ask for a new email.",
            ])
        case .invalidActionCode:
            Entry("invalidActionCode", "ERROR_INVALID_ACTION_CODE", .refused, server: [
                "INVALID_OOB_CODE": "The email action code is malformed, already used, or for another action; ask for a new email.",
                "MISSING_OOB_CODE": "No email action code was sent; pass the code (oobCode) from the email's link.",
            ])
        case .invalidMessagePayload:
            Entry("invalidMessagePayload", "ERROR_INVALID_MESSAGE_PAYLOAD", .refused, server: [
                "INVALID_MESSAGE_PAYLOAD": "The project's email template is not valid; fix it in the Firebase console.",
            ])
        case .invalidSender:
            Entry("invalidSender", "ERROR_INVALID_SENDER", .refused, server: [
                "INVALID_SENDER": "The project's email sender is not valid; fix it in the Firebase console.",
            ])
        case .invalidRecipientEmail:
            Entry("invalidRecipientEmail", "ERROR_INVALID_RECIPIENT_EMAIL", .refused, server: [
                "INVALID_RECIPIENT_EMAIL": "The email address cannot receive the email; check it.",
            ])
        case .missingIosBundleID:
            Entry("missingIosBundleID", "ERROR_MISSING_IOS_BUNDLE_ID", .refused, server: [
                "MISSING_IOS_BUNDLE_ID": "The action code settings need an iOS bundle ID with an App Store ID.",
            ])
        case .missingAndroidPackageName:
            Entry("missingAndroidPackageName", "ERROR_MISSING_ANDROID_PKG_NAME", .refused, server: [
                "MISSING_ANDROID_PACKAGE_NAME": "The action code settings need an Android package name to install the Android app.",
            ])
        case .unauthorizedDomain:
            Entry("unauthorizedDomain", "ERROR_UNAUTHORIZED_DOMAIN", .refused, server: [
                "UNAUTHORIZED_DOMAIN": "The continue URL's domain is not authorized; add it in the Firebase console (Authentication, Settings).",
                "UNAUTHORIZED_CONTINUE_URI":
                    "The continue URL's domain is not authorized; add it in the Firebase console (Authentication, Settings).",
            ])
        case .invalidContinueURI:
            Entry("invalidContinueURI", "ERROR_INVALID_CONTINUE_URI", .refused, server: [
                "INVALID_CONTINUE_URI": "The continue URL is not a valid URL; set ActionCodeSettings.url to one.",
            ])
        case .missingContinueURI:
            Entry("missingContinueURI", "ERROR_MISSING_CONTINUE_URI", .refused, server: [
                "MISSING_CONTINUE_URI": "This email needs a continue URL; set ActionCodeSettings.url.",
            ])
        case .emailChangeNeedsVerification:
            Entry("emailChangeNeedsVerification", "ERROR_EMAIL_CHANGE_NEEDS_VERIFICATION", .refused, server: [
                "EMAIL_CHANGE_NEEDS_VERIFICATION":
                    "The project requires a new email address to be verified first; use User.sendEmailVerification(beforeUpdatingEmail:).",
            ])
        case .webContextAlreadyPresented: Entry("webContextAlreadyPresented", "ERROR_WEB_CONTEXT_ALREADY_PRESENTED", .localFailure)
        case .webContextCancelled: Entry("webContextCancelled", "ERROR_WEB_CONTEXT_CANCELLED", .localFailure)
        case .invalidClientID: Entry("invalidClientID", "ERROR_INVALID_CLIENT_ID", .invalidInput)
        case .webInternalError: Entry("webInternalError", "ERROR_WEB_INTERNAL_ERROR", .localFailure)
        case .webSignInUserInteractionFailure: Entry("webSignInUserInteractionFailure", "ERROR_WEB_USER_INTERACTION_FAILURE", .localFailure)

        // Phone numbers and app verification, codes of Apple's platforms only, and backend answers Firebase has codes of its own for.
        case .appNotAuthorized: Entry("appNotAuthorized", "ERROR_APP_NOT_AUTHORIZED", .refused)
        case .missingPhoneNumber:
            Entry("missingPhoneNumber", "ERROR_MISSING_PHONE_NUMBER", .refused, server: [
                "MISSING_PHONE_NUMBER": "The request had no phone number; pass one in E.164 form.",
            ])
        case .invalidPhoneNumber:
            Entry("invalidPhoneNumber", "ERROR_INVALID_PHONE_NUMBER", .refused, server: [
                "INVALID_PHONE_NUMBER": "The phone number is malformed.",
            ])
        case .missingVerificationCode:
            Entry("missingVerificationCode", "ERROR_MISSING_VERIFICATION_CODE", .refused, server: [
                "MISSING_CODE": "The SMS code was not given; pass the code the message carried.",
            ])
        case .invalidVerificationCode:
            Entry("invalidVerificationCode", "ERROR_INVALID_VERIFICATION_CODE", .refused, server: [
                "INVALID_CODE": "The code is wrong or has expired; enter the current one.",
            ])
        case .missingVerificationID:
            Entry("missingVerificationID", "ERROR_MISSING_VERIFICATION_ID", .refused, server: [
                "MISSING_SESSION_INFO": "The verification ID was not given; pass the one verifyPhoneNumber returned.",
            ])
        case .invalidVerificationID:
            Entry("invalidVerificationID", "ERROR_INVALID_VERIFICATION_ID", .refused, server: [
                "INVALID_SESSION_INFO": "The phone verification ID is not valid.",
            ])
        case .missingAppCredential:
            Entry("missingAppCredential", "MISSING_APP_CREDENTIAL", .refused, server: [
                "MISSING_APP_CREDENTIAL": "The request needs an app verification credential.",
            ])
        case .invalidAppCredential:
            Entry("invalidAppCredential", "INVALID_APP_CREDENTIAL", .refused, server: [
                "INVALID_APP_CREDENTIAL": "The app verification credential is not valid.",
            ])
        case .sessionExpired:
            Entry("sessionExpired", "ERROR_SESSION_EXPIRED", .refused, server: [
                "SESSION_EXPIRED": "The session expired; start again.",
            ])
        case .quotaExceeded:
            Entry("quotaExceeded", "ERROR_QUOTA_EXCEEDED", .refused, server: [
                "QUOTA_EXCEEDED": "The project's quota is exceeded; try again later.",
            ])
        case .missingAppToken:
            Entry("missingAppToken", "ERROR_MISSING_APP_TOKEN", .refused, server: [
                "MISSING_IOS_APP_TOKEN": "The request needs an APNs token for app verification.",
            ])
        case .notificationNotForwarded: Entry("notificationNotForwarded", "ERROR_NOTIFICATION_NOT_FORWARDED", .refused)
        case .appNotVerified:
            Entry("appNotVerified", "ERROR_APP_NOT_VERIFIED", .refused, server: [
                "APP_NOT_VERIFIED": "The app could not be verified; phone sign-in needs app verification.",
            ])
        case .captchaCheckFailed:
            Entry("captchaCheckFailed", "ERROR_CAPTCHA_CHECK_FAILED", .refused, server: [
                "CAPTCHA_CHECK_FAILED": "The reCAPTCHA check failed.",
            ])
        case .appVerificationUserInteractionFailure: Entry("appVerificationUserInteractionFailure", "ERROR_APP_VERIFICATION_FAILED", .refused)
        case .webNetworkRequestFailed: Entry("webNetworkRequestFailed", "ERROR_WEB_NETWORK_REQUEST_FAILED", .refused)
        case .localPlayerNotAuthenticated: Entry("localPlayerNotAuthenticated", "ERROR_LOCAL_PLAYER_NOT_AUTHENTICATED", .refused)
        case .invalidHostingLinkDomain:
            Entry("invalidHostingLinkDomain", "ERROR_INVALID_HOSTING_LINK_DOMAIN", .refused, server: [
                "INVALID_HOSTING_LINK_DOMAIN":
                    "The sign-in link's domain is not a Hosting domain of the project; check ActionCodeSettings.linkDomain.",
            ])
        case .rejectedCredential: Entry("rejectedCredential", "ERROR_REJECTED_CREDENTIAL", .refused)
        case .gameKitNotLinked: Entry("gameKitNotLinked", "ERROR_GAME_KIT_NOT_LINKED", .refused)
        case .secondFactorRequired: Entry("secondFactorRequired", "ERROR_SECOND_FACTOR_REQUIRED", .refused)
        case .missingMultiFactorSession:
            Entry("missingMultiFactorSession", "ERROR_MISSING_MULTI_FACTOR_SESSION", .refused, server: [
                "MISSING_MFA_PENDING_CREDENTIAL": "The second-factor sign-in has no session; sign in again.",
            ])
        case .missingMultiFactorInfo:
            Entry("missingMultiFactorInfo", "ERROR_MISSING_MULTI_FACTOR_INFO", .refused, server: [
                "MISSING_MFA_ENROLLMENT_ID": "No second factor was chosen; choose one of the account's.",
            ])
        case .invalidMultiFactorSession:
            Entry("invalidMultiFactorSession", "ERROR_INVALID_MULTI_FACTOR_SESSION", .refused, server: [
                "INVALID_MFA_PENDING_CREDENTIAL": "The second-factor sign-in expired or was used; sign in again.",
            ])
        case .multiFactorInfoNotFound:
            Entry("multiFactorInfoNotFound", "ERROR_MULTI_FACTOR_INFO_NOT_FOUND", .refused, server: [
                "MFA_ENROLLMENT_NOT_FOUND": "The account has no such second factor.",
            ])
        case .adminRestrictedOperation:
            Entry("adminRestrictedOperation", "ERROR_ADMIN_RESTRICTED_OPERATION", .refused, server: [
                "ADMIN_ONLY_OPERATION": "Only an administrator may do this in this project.",
            ])
        case .unverifiedEmail:
            Entry("unverifiedEmail", "ERROR_UNVERIFIED_EMAIL", .refused, server: [
                "UNVERIFIED_EMAIL": "This needs a verified email address; verify it first.",
            ])
        case .secondFactorAlreadyEnrolled:
            Entry("secondFactorAlreadyEnrolled", "ERROR_SECOND_FACTOR_ALREADY_ENROLLED", .refused, server: [
                "SECOND_FACTOR_EXISTS": "That second factor is already enrolled.",
            ])
        case .maximumSecondFactorCountExceeded:
            Entry("maximumSecondFactorCountExceeded", "ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED", .refused, server: [
                "SECOND_FACTOR_LIMIT_EXCEEDED": "The account has as many second factors as it may.",
            ])
        case .unsupportedFirstFactor:
            Entry("unsupportedFirstFactor", "ERROR_UNSUPPORTED_FIRST_FACTOR", .refused, server: [
                "UNSUPPORTED_FIRST_FACTOR": "This sign-in method cannot be combined with a second factor.",
            ])
        case .missingClientIdentifier:
            Entry("missingClientIdentifier", "ERROR_MISSING_CLIENT_IDENTIFIER", .refused, server: [
                "MISSING_CLIENT_IDENTIFIER": "The request carried no app verification, which the project requires.",
            ])
        case .blockingCloudFunctionError:
            Entry("blockingCloudFunctionError", "ERROR_BLOCKING_CLOUD_FUNCTION_RETURNED_ERROR", .refused, server: [
                "BLOCKING_FUNCTION_ERROR_RESPONSE": "A blocking function of the project refused this request.",
            ])
        case .recaptchaNotEnabled:
            Entry("recaptchaNotEnabled", "ERROR_RECAPTCHA_NOT_ENABLED", .refused, server: [
                "RECAPTCHA_NOT_ENABLED": "reCAPTCHA Enterprise is not enabled for the project; enable it in the Firebase console or turn its enforcement off.",
            ])
        case .missingRecaptchaToken:
            Entry("missingRecaptchaToken", "ERROR_MISSING_RECAPTCHA_TOKEN", .refused, server: [
                "MISSING_RECAPTCHA_TOKEN": "The project requires a reCAPTCHA token, and the request had none; verify again on the page.",
            ])
        case .invalidRecaptchaToken:
            Entry("invalidRecaptchaToken", "ERROR_INVALID_RECAPTCHA_TOKEN", .refused, server: [
                "INVALID_RECAPTCHA_TOKEN": "The reCAPTCHA token was refused (expired or used); verify again on the page.",
            ])
        case .invalidRecaptchaAction:
            Entry("invalidRecaptchaAction", "ERROR_INVALID_RECAPTCHA_ACTION", .refused, server: [
                "INVALID_RECAPTCHA_ACTION": "The reCAPTCHA token was made for another action than this request.",
            ])
        case .missingClientType:
            Entry("missingClientType", "ERROR_MISSING_CLIENT_TYPE", .refused, server: [
                "MISSING_CLIENT_TYPE": "The reCAPTCHA request did not say its client type.",
            ])
        case .missingRecaptchaVersion:
            Entry("missingRecaptchaVersion", "ERROR_MISSING_RECAPTCHA_VERSION", .refused, server: [
                "MISSING_RECAPTCHA_VERSION": "The reCAPTCHA request did not say its reCAPTCHA version.",
            ])
        case .invalidRecaptchaVersion:
            Entry("invalidRecaptchaVersion", "ERROR_INVALID_RECAPTCHA_VERSION", .refused, server: [
                "INVALID_RECAPTCHA_VERSION": "The reCAPTCHA version is not one the project accepts.",
            ])
        case .invalidReqType:
            Entry("invalidReqType", "ERROR_INVALID_REQ_TYPE", .refused, server: [
                "INVALID_REQ_TYPE": "The request type is not valid for reCAPTCHA.",
            ])
        case .recaptchaSDKNotLinked: Entry("recaptchaSDKNotLinked", "ERROR_RECAPTCHA_SDK_NOT_LINKED", .refused)
        case .recaptchaSiteKeyMissing: Entry("recaptchaSiteKeyMissing", "ERROR_RECAPTCHA_SITE_KEY_MISSING", .refused)
        case .recaptchaActionCreationFailed: Entry("recaptchaActionCreationFailed", "ERROR_RECAPTCHA_ACTION_CREATION_FAILED", .refused)
        case .passwordDoesNotMeetRequirements:
            Entry("passwordDoesNotMeetRequirements", "ERROR_PASSWORD_DOES_NOT_MEET_REQUIREMENTS", .refused, server: [
                "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": "The password does not meet the project's password policy.",
            ])

        case .malformedJWT: Entry("malformedJWT", "ERROR_MALFORMED_JWT", .localFailure)
        case .internalError:
            Entry("internalError", "ERROR_INTERNAL_ERROR", .refused, server: [
                "INVALID_GRANT_TYPE": "The token request was malformed; this is a bug in KeyringAuth.",
            ])
        }
    }
}
