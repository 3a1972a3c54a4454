/// An Identity Toolkit error message, `CODE` or `CODE : detail`, and the ``AuthErrorCode`` it means.
struct ServerErrorCode: Hashable, Sendable {
    /// The server's code, for example `WEAK_PASSWORD`.
    let code: String
    /// What follows the first colon, when the server adds a detail.
    let detail: String?
    /// The `reason`s of the reply's `errors` and `details`, for example `API_KEY_INVALID`.
    let reasons: [String]

    /// Splits `message` at its first colon, as Firebase's SDKs do (`INVALID_ID_TOKEN:The user's…` and
    /// `WEAK_PASSWORD : Password should…` both occur).
    init(message: String, reasons: [String] = []) {
        // Only an upper-case code is split off: Google's sentences contain colons too.
        if let colon = message.firstIndex(of: ":"),
            message[..<colon].trimmingCharacters(in: .whitespaces).allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber })
        {
            code = message[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
            let rest = message[message.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            detail = rest.isEmpty ? nil : rest
        } else {
            code = message.trimmingCharacters(in: .whitespacesAndNewlines)
            detail = nil
        }
        self.reasons = reasons
    }

    /// The client code and the advice for each server code Identity Toolkit documents.
    static let table: [String: (AuthErrorCode, String)] = [
        "EMAIL_EXISTS": (.emailAlreadyInUse, "Another account already uses this email address; sign in instead."),
        "EMAIL_NOT_FOUND": (.userNotFound, "No account has this email address; check it or create an account."),
        "USER_NOT_FOUND": (.userNotFound, "The account no longer exists; sign in again or create an account."),
        "INVALID_PASSWORD": (.wrongPassword, "The password is wrong."),
        "INVALID_LOGIN_CREDENTIALS": (.invalidCredential, "The email address or the password is wrong."),
        "MISSING_PASSWORD": (.missingPassword, "A password is required."),
        "WEAK_PASSWORD": (.weakPassword, "Choose a password of at least 6 characters."),
        "INVALID_EMAIL": (.invalidEmail, "The email address is malformed."),
        "INVALID_IDENTIFIER": (.invalidEmail, "The email address is malformed."),
        "MISSING_EMAIL": (.missingEmail, "An email address is required."),
        "USER_DISABLED": (.userDisabled, "An administrator disabled this account."),
        "TOKEN_EXPIRED": (.userTokenExpired, "The user's credential is no longer valid; sign in again."),
        "INVALID_ID_TOKEN": (.invalidUserToken, "The user's credential is no longer valid; sign in again."),
        "MISSING_ID_TOKEN": (.invalidUserToken, "No ID token was sent; sign in again."),
        "INVALID_REFRESH_TOKEN": (.invalidUserToken, "The refresh token is not valid; sign in again."),
        "MISSING_REFRESH_TOKEN": (.invalidUserToken, "No refresh token was sent; sign in again."),
        "INVALID_GRANT_TYPE": (.internalError, "The token request was malformed; this is a bug in KeyringAuth."),
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": (.requiresRecentLogin, "This change needs a recent sign-in; sign in again and retry."),
        "OPERATION_NOT_ALLOWED": (.operationNotAllowed, "This sign-in method is disabled; enable it in the Firebase console."),
        "PASSWORD_LOGIN_DISABLED": (.operationNotAllowed, "Email/password sign-in is disabled; enable it in the Firebase console."),
        "ADMIN_ONLY_OPERATION": (.adminRestrictedOperation, "Only an administrator may do this in this project."),
        "TOO_MANY_ATTEMPTS_TRY_LATER": (.tooManyRequests, "Too many attempts; wait a while and try again."),
        "QUOTA_EXCEEDED": (.quotaExceeded, "The project's quota is exceeded; try again later."),
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": (
            .passwordDoesNotMeetRequirements, "The password does not meet the project's password policy."
        ),
        "BLOCKING_FUNCTION_ERROR_RESPONSE": (.blockingCloudFunctionError, "A blocking function of the project refused this request."),
        "UNVERIFIED_EMAIL": (.unverifiedEmail, "This needs a verified email address; verify it first."),
        "SESSION_EXPIRED": (.sessionExpired, "The session expired; start again."),
        "INVALID_MFA_PENDING_CREDENTIAL": (.invalidMultiFactorSession, "The second-factor sign-in expired or was used; sign in again."),
        "MISSING_MFA_PENDING_CREDENTIAL": (.missingMultiFactorSession, "The second-factor sign-in has no session; sign in again."),
        "MISSING_MFA_ENROLLMENT_ID": (.missingMultiFactorInfo, "No second factor was chosen; choose one of the account's."),
        "MFA_ENROLLMENT_NOT_FOUND": (.multiFactorInfoNotFound, "The account has no such second factor."),
        "SECOND_FACTOR_EXISTS": (.secondFactorAlreadyEnrolled, "That second factor is already enrolled."),
        "SECOND_FACTOR_LIMIT_EXCEEDED": (.maximumSecondFactorCountExceeded, "The account has as many second factors as it may."),
        "UNSUPPORTED_FIRST_FACTOR": (.unsupportedFirstFactor, "This sign-in method cannot be combined with a second factor."),
        "INVALID_CODE": (.invalidVerificationCode, "The code is wrong or has expired; enter the current one."),
        "INVALID_API_KEY": (.invalidAPIKey, "The API key is not valid; copy the Web API key from the Firebase console."),
        "PROJECT_NOT_FOUND": (.invalidAPIKey, "No project matches the API key; check the app's options."),
        "PROJECT_NUMBER_MISMATCH": (.invalidAPIKey, "The refresh token belongs to another project than the API key."),
        "CONFIGURATION_NOT_FOUND": (.operationNotAllowed, "Authentication is not set up for this project; enable it in the Firebase console."),
        "TENANT_ID_MISMATCH": (.tenantIDMismatch, "The user belongs to another tenant than this app."),
        "INVALID_TENANT_ID": (.invalidConfiguration, "The tenant ID is not valid; check the app's options."),
        "UNSUPPORTED_TENANT_OPERATION": (.unsupportedTenantOperation, "This request is not supported for a tenant."),
        "FEDERATED_USER_ID_ALREADY_LINKED": (
            .credentialAlreadyInUse, "This credential is already linked to another account; sign in with it instead."
        ),
        "INVALID_IDP_RESPONSE": (.invalidCredential, "The identity provider's token is malformed or has expired; sign in with the provider again."),
        "INVALID_PENDING_TOKEN": (.invalidCredential, "The pending credential is malformed or has expired; sign in with the provider again."),
        "INVALID_CREDENTIAL_OR_PROVIDER_ID": (.invalidCredential, "The credential or its provider ID is not valid."),
        "INVALID_PROVIDER_ID": (.invalidProviderID, "This provider ID is not enabled or not known to the project."),
        "MISSING_OR_INVALID_NONCE": (.missingOrInvalidNonce, "The raw nonce does not match the ID token's nonce; pass the nonce the sign-in used."),
        "NEED_CONFIRMATION": (
            .accountExistsWithDifferentCredential,
            "An account already uses this email address with another sign-in method; sign in with it, then link this credential."
        ),
        "NO_SUCH_PROVIDER": (.noSuchProvider, "The account has no sign-in method of this provider."),
        "INVALID_CUSTOM_TOKEN": (.invalidCustomToken, "The custom token is malformed, expired, or not for this project; mint a new one."),
        "MISSING_CUSTOM_TOKEN": (.invalidCustomToken, "No custom token was sent; pass the token the app's server minted."),
        "CREDENTIAL_MISMATCH": (.customTokenMismatch, "The custom token was minted for another project than the API key's."),
        "INVALID_CLAIMS": (.invalidCustomToken, "The custom token's claims are not a JSON object."),
        "FORBIDDEN_CLAIM": (.invalidCustomToken, "The custom token sets a reserved claim (iss, aud, sub, exp, firebase, …)."),
        "CLAIMS_TOO_LARGE": (.invalidCustomToken, "The custom token's claims exceed 1000 bytes."),
        "EXPIRED_OOB_CODE": (.expiredActionCode, "The email action code has expired; ask for a new email."),
        "INVALID_OOB_CODE": (
            .invalidActionCode, "The email action code is malformed, already used, or for another action; ask for a new email."
        ),
        "MISSING_OOB_CODE": (.invalidActionCode, "No email action code was sent; pass the code (oobCode) from the email's link."),
        "INVALID_MESSAGE_PAYLOAD": (.invalidMessagePayload, "The project's email template is not valid; fix it in the Firebase console."),
        "INVALID_SENDER": (.invalidSender, "The project's email sender is not valid; fix it in the Firebase console."),
        "INVALID_RECIPIENT_EMAIL": (.invalidRecipientEmail, "The email address cannot receive the email; check it."),
        "MISSING_IOS_BUNDLE_ID": (.missingIosBundleID, "The action code settings need an iOS bundle ID with an App Store ID."),
        "MISSING_ANDROID_PACKAGE_NAME": (
            .missingAndroidPackageName, "The action code settings need an Android package name to install the Android app."
        ),
        "UNAUTHORIZED_DOMAIN": (
            .unauthorizedDomain, "The continue URL's domain is not authorized; add it in the Firebase console (Authentication, Settings)."
        ),
        "UNAUTHORIZED_CONTINUE_URI": (
            .unauthorizedDomain, "The continue URL's domain is not authorized; add it in the Firebase console (Authentication, Settings)."
        ),
        "INVALID_CONTINUE_URI": (.invalidContinueURI, "The continue URL is not a valid URL; set ActionCodeSettings.url to one."),
        "MISSING_CONTINUE_URI": (.missingContinueURI, "This email needs a continue URL; set ActionCodeSettings.url."),
        "INVALID_HOSTING_LINK_DOMAIN": (
            .invalidHostingLinkDomain, "The sign-in link's domain is not a Hosting domain of the project; check ActionCodeSettings.linkDomain."
        ),
        "MISSING_CLIENT_IDENTIFIER": (.missingClientIdentifier, "The request carried no app verification, which the project requires."),
        // Phone numbers and app verification: never asked for on Linux, mapped as Firebase maps them.
        "INVALID_PHONE_NUMBER": (.invalidPhoneNumber, "The phone number is malformed."),
        "APP_NOT_VERIFIED": (.appNotVerified, "The app could not be verified; phone sign-in needs app verification."),
        "CAPTCHA_CHECK_FAILED": (.captchaCheckFailed, "The reCAPTCHA check failed."),
        "INVALID_APP_CREDENTIAL": (.invalidAppCredential, "The app verification credential is not valid."),
        "MISSING_APP_CREDENTIAL": (.missingAppCredential, "The request needs an app verification credential."),
        "INVALID_SESSION_INFO": (.invalidVerificationID, "The phone verification ID is not valid."),
        "MISSING_IOS_APP_TOKEN": (.missingAppToken, "The request needs an APNs token for app verification."),
        "EMAIL_CHANGE_NEEDS_VERIFICATION": (
            .emailChangeNeedsVerification,
            "The project requires a new email address to be verified first; use User.sendEmailVerification(beforeUpdatingEmail:)."
        ),
    ]

    /// The typed error: the mapped code, the advice, and the server's own words, in Firebase's order: the
    /// message's code first, then the reasons of a message it does not know.
    var authError: AuthError {
        let server = detail.map { "\(code): \($0)" } ?? code
        if let (mapped, advice) = Self.table[code] {
            var error = AuthError(mapped, "\(advice) (\(server))")
            error.serverDetail = detail
            return error
        }
        // Google answers a bad or missing key with a sentence (and a reason), not a code.
        if code.hasPrefix("API key not valid") || code.hasPrefix("API key expired")
            || code.hasPrefix("The request is missing a valid API key")
            || reasons.contains(where: { $0 == "API_KEY_INVALID" || $0.hasPrefix("keyInvalid") })
        {
            return AuthError(.invalidAPIKey, "The API key was refused (\(server)); copy the Web API key from the Firebase console.")
        }
        if reasons.contains("ipRefererBlocked") {
            return AuthError(
                .appNotAuthorized,
                "The API key does not allow this app (\(server)); lift its application restrictions in the Google Cloud console.")
        }
        return AuthError(.internalError, "The identity service refused the request (\(server)).")
    }
}
