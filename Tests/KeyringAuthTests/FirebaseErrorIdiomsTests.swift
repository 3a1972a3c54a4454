import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Testing

/// Error handling written as Firebase apps write it (firebase-ios-sdk's `AuthErrorCode` with integer
/// raw values, `AuthErrors.domain`, `NSError`'s `userInfo`), against KeyringAuth: each idiom compiles
/// and behaves as in Firebase. The app code uses only `import KeyringAuth` and Foundation.
@Suite struct FirebaseErrorIdiomsTests {
    /// A backend that cannot be reached, as `IdentityToolkitBackend` reports no connection.
    struct OfflineBackend: AuthBackend {
        let apiKey = "AIza-offline"
        static let error = AuthError(.networkError, "The identity service could not be reached (offline).")
        func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw Self.error }
        func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw Self.error }
        func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn { throw Self.error }
        func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount { throw Self.error }
        func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
            throw Self.error
        }
        func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) { throw Self.error }
        func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens { throw Self.error }
    }

    /// An app configured as Firebase apps are, whose backend is offline.
    func offlineAuth() -> Auth {
        let name = "idioms-\(UUID().uuidString.prefix(8))"
        return Auth.configure(AuthConfiguration(
            options: AuthAppOptions(appName: name, apiKey: "AIza-offline", appID: "1:42:linux:\(name)", projectID: "demo"),
            store: InMemoryStore(), backend: OfflineBackend()))
    }

    // MARK: The issue's idiom: the NSError's code against AuthErrorCode's raw value

    @Test func catchAsNSErrorComparesTheCodeWithTheRawValue() async {
        let auth = offlineAuth()
        var retried = false
        do {
            _ = try await auth.signIn(withEmail: "a@example.com", password: "secret1")
        } catch let error as NSError {
            if error.code == AuthErrorCode.networkError.rawValue { retried = true }
            #expect(error.domain == AuthErrors.domain)
            #expect(error.code == 17020)
        }
        #expect(retried)
    }

    @Test func coercingToNSErrorInAPlainCatch() async {
        let auth = offlineAuth()
        do {
            _ = try await auth.signInAnonymously()
            Issue.record("signed in offline")
        } catch {
            let error = error as NSError
            #expect(error.domain == AuthErrors.domain && error.code == AuthErrorCode.networkError.rawValue)
            #expect((error as NSError).userInfo[NSLocalizedDescriptionKey] as? String
                == "The identity service could not be reached (offline).")
            #expect(error.localizedDescription == "The identity service could not be reached (offline).")
            #expect(error.userInfo[AuthErrors.userInfoNameKey] as? String == "ERROR_NETWORK_REQUEST_FAILED")
        }
    }

    @Test func switchingOnAuthErrorCodeMadeFromTheNSErrorsCode() async {
        let apps = TwoApps()
        let auth = apps.launch("idioms-app")
        var message = ""
        do {
            _ = try await auth.signIn(withEmail: "nobody@example.com", password: "whatever")
        } catch {
            let error = error as NSError
            switch AuthErrorCode(rawValue: error.code) {
            case .networkError: message = "offline"
            case .userNotFound: message = "no such account"
            case .wrongPassword: message = "wrong password"
            default: message = error.localizedDescription
            }
        }
        #expect(message == "no such account")
    }

    /// Code that throws `any Error` (its own `throws` functions around Auth's calls) catches the same way.
    @Test func catchAsNSErrorThroughAnUntypedThrowingFunction() async {
        let auth = offlineAuth()
        func signInFlow() async throws { _ = try await auth.signInAnonymously() }
        do {
            try await signInFlow()
            Issue.record("signed in offline")
        } catch let error as NSError where error.code == AuthErrorCode.networkError.rawValue {
            #expect(error.domain == AuthErrors.domain)
        } catch {
            Issue.record("not caught as an NSError: \(error)")
        }
    }

    @Test func completionHandlerErrorAsNSError() async {
        let auth = offlineAuth()
        let code: Int? = await withCheckedContinuation { continuation in
            auth.signInAnonymously { result, error in
                if let error = error as NSError? {
                    continuation.resume(returning: error.code)
                } else {
                    continuation.resume(returning: nil)
                }
            }
        }
        #expect(code == AuthErrorCode.networkError.rawValue)
    }

    // MARK: The typed form

    @Test func catchAsAuthErrorWhereTheCodeMatches() async {
        let auth = offlineAuth()
        func remember(_ uid: String) throws { try Data(uid.utf8).write(to: URL(fileURLWithPath: "/nonexistent/uid")) }
        var caught: AuthError?
        do {
            let result = try await auth.signInAnonymously()
            try remember(result.user.uid)
        } catch let error as AuthError where error.code == .networkError {
            caught = error
        } catch {
            Issue.record("unexpected: \(error)")
        }
        #expect(caught?.message == "The identity service could not be reached (offline).")
    }

    /// Where the `do` body calls only KeyringAuth, its typed throws make `error` an `AuthError` already.
    @Test func catchWhereTheCodeMatchesWithTypedThrows() async {
        let auth = offlineAuth()
        var caught: AuthErrorCode?
        do {
            _ = try await auth.signInAnonymously()
        } catch where error.code == .networkError {
            caught = error.code
        } catch {
            Issue.record("unexpected: \(error)")
        }
        #expect(caught == .networkError)
    }

    @Test func theNSErrorCastBackIsTheSameAuthError() async {
        let auth = offlineAuth()
        do {
            _ = try await auth.signInAnonymously()
        } catch let error as NSError {
            let typed = error as Error as? AuthError
            #expect(typed == OfflineBackend.error)
        }
        let foreign: Error = NSError(domain: AuthErrors.domain, code: AuthErrorCode.networkError.rawValue)
        #expect(foreign as? AuthError == nil, "only an NSError made from an AuthError casts back")
        let keychain = AuthError.keychain(.locked(collection: "login"))
        #expect((keychain as NSError) as Error as? AuthError == keychain, "the keychain error survives the round trip")
    }

    // MARK: userInfo

    @Test func aKeychainFailureCarriesTheKeychainErrorAsTheUnderlyingError() throws {
        let keychain = KeychainError.locked(collection: "the default alias")
        let error = AuthError.keychain(keychain) as NSError
        #expect(error.domain == "FIRAuthErrorDomain")
        #expect(error.code == 17995)
        #expect(error.userInfo[AuthErrors.userInfoNameKey] as? String == "ERROR_KEYCHAIN_ERROR")
        #expect(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String == keychain.description)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == String(reflecting: KeychainError.self))
        #expect(underlying.localizedDescription == keychain.description)
        #expect((AuthError(.networkError, "offline") as NSError).userInfo[NSUnderlyingErrorKey] == nil)
    }

    @Test func firebaseDomainAndKeys() {
        #expect(AuthErrors.domain == "FIRAuthErrorDomain")
        #expect(AuthErrors.userInfoNameKey == "FIRAuthErrorUserInfoNameKey")
        #expect(AuthErrors.userInfoEmailKey == "FIRAuthErrorUserInfoEmailKey")
        #expect(AuthErrors.userInfoUpdatedCredentialKey == "FIRAuthErrorUserInfoUpdatedCredentialKey")
        #expect(AuthError.errorDomain == AuthErrors.domain)
    }
}

/// The codes: Firebase's integers and names for the codes Firebase has, ours outside its range.
@Suite struct AuthErrorCodeValueTests {
    /// firebase-ios-sdk, FirebaseAuth/Sources/Swift/Utilities/AuthErrors.swift: raw value and `errorCodeString`.
    static let firebase: [AuthErrorCode: (Int, String)] = [
        .invalidCredential: (17004, "ERROR_INVALID_CREDENTIAL"),
        .userDisabled: (17005, "ERROR_USER_DISABLED"),
        .operationNotAllowed: (17006, "ERROR_OPERATION_NOT_ALLOWED"),
        .emailAlreadyInUse: (17007, "ERROR_EMAIL_ALREADY_IN_USE"),
        .invalidEmail: (17008, "ERROR_INVALID_EMAIL"),
        .wrongPassword: (17009, "ERROR_WRONG_PASSWORD"),
        .tooManyRequests: (17010, "ERROR_TOO_MANY_REQUESTS"),
        .userNotFound: (17011, "ERROR_USER_NOT_FOUND"),
        .requiresRecentLogin: (17014, "ERROR_REQUIRES_RECENT_LOGIN"),
        .invalidUserToken: (17017, "ERROR_INVALID_USER_TOKEN"),
        .networkError: (17020, "ERROR_NETWORK_REQUEST_FAILED"),
        .userTokenExpired: (17021, "ERROR_USER_TOKEN_EXPIRED"),
        .invalidAPIKey: (17023, "ERROR_INVALID_API_KEY"),
        .weakPassword: (17026, "ERROR_WEAK_PASSWORD"),
        .missingEmail: (17034, "ERROR_MISSING_EMAIL"),
        .nullUser: (17067, "ERROR_NULL_USER"),
        .tenantIDMismatch: (17072, "ERROR_TENANT_ID_MISMATCH"),
        .keychainError: (17995, "ERROR_KEYCHAIN_ERROR"),
        .internalError: (17999, "ERROR_INTERNAL_ERROR"),
        .invalidCustomToken: (17000, "ERROR_INVALID_CUSTOM_TOKEN"),
        .customTokenMismatch: (17002, "ERROR_CUSTOM_TOKEN_MISMATCH"),
        .accountExistsWithDifferentCredential: (17012, "ERROR_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"),
        .providerAlreadyLinked: (17015, "ERROR_PROVIDER_ALREADY_LINKED"),
        .noSuchProvider: (17016, "ERROR_NO_SUCH_PROVIDER"),
        .userMismatch: (17024, "ERROR_USER_MISMATCH"),
        .credentialAlreadyInUse: (17025, "ERROR_CREDENTIAL_ALREADY_IN_USE"),
        .invalidProviderID: (17071, "ERROR_INVALID_PROVIDER_ID"),
        .unsupportedTenantOperation: (17073, "ERROR_UNSUPPORTED_TENANT_OPERATION"),
        .missingOrInvalidNonce: (17094, "ERROR_MISSING_OR_INVALID_NONCE"),
        .expiredActionCode: (17029, "ERROR_EXPIRED_ACTION_CODE"),
        .invalidActionCode: (17030, "ERROR_INVALID_ACTION_CODE"),
        .invalidMessagePayload: (17031, "ERROR_INVALID_MESSAGE_PAYLOAD"),
        .invalidSender: (17032, "ERROR_INVALID_SENDER"),
        .invalidRecipientEmail: (17033, "ERROR_INVALID_RECIPIENT_EMAIL"),
        .missingIosBundleID: (17036, "ERROR_MISSING_IOS_BUNDLE_ID"),
        .missingAndroidPackageName: (17037, "ERROR_MISSING_ANDROID_PKG_NAME"),
        .unauthorizedDomain: (17038, "ERROR_UNAUTHORIZED_DOMAIN"),
        .invalidContinueURI: (17039, "ERROR_INVALID_CONTINUE_URI"),
        .missingContinueURI: (17040, "ERROR_MISSING_CONTINUE_URI"),
        .emailChangeNeedsVerification: (17090, "ERROR_EMAIL_CHANGE_NEEDS_VERIFICATION"),
        .webContextAlreadyPresented: (17057, "ERROR_WEB_CONTEXT_ALREADY_PRESENTED"),
        .webContextCancelled: (17058, "ERROR_WEB_CONTEXT_CANCELLED"),
        .invalidClientID: (17060, "ERROR_INVALID_CLIENT_ID"),
        .webInternalError: (17062, "ERROR_WEB_INTERNAL_ERROR"),
        .webSignInUserInteractionFailure: (17063, "ERROR_WEB_USER_INTERACTION_FAILURE"),
        .malformedJWT: (18000, "ERROR_MALFORMED_JWT"),
        .appNotAuthorized: (17028, "ERROR_APP_NOT_AUTHORIZED"),
        .missingPhoneNumber: (17041, "ERROR_MISSING_PHONE_NUMBER"),
        .invalidPhoneNumber: (17042, "ERROR_INVALID_PHONE_NUMBER"),
        .missingVerificationCode: (17043, "ERROR_MISSING_VERIFICATION_CODE"),
        .invalidVerificationCode: (17044, "ERROR_INVALID_VERIFICATION_CODE"),
        .missingVerificationID: (17045, "ERROR_MISSING_VERIFICATION_ID"),
        .invalidVerificationID: (17046, "ERROR_INVALID_VERIFICATION_ID"),
        .missingAppCredential: (17047, "ERROR_MISSING_APP_CREDENTIAL"),
        .invalidAppCredential: (17048, "ERROR_INVALID_APP_CREDENTIAL"),
        .sessionExpired: (17051, "ERROR_SESSION_EXPIRED"),
        .quotaExceeded: (17052, "ERROR_QUOTA_EXCEEDED"),
        .missingAppToken: (17053, "ERROR_MISSING_APP_TOKEN"),
        .notificationNotForwarded: (17054, "ERROR_NOTIFICATION_NOT_FORWARDED"),
        .appNotVerified: (17055, "ERROR_APP_NOT_VERIFIED"),
        .captchaCheckFailed: (17056, "ERROR_CAPTCHA_CHECK_FAILED"),
        .appVerificationUserInteractionFailure: (17059, "ERROR_APP_VERIFICATION_FAILED"),
        .webNetworkRequestFailed: (17061, "ERROR_WEB_NETWORK_REQUEST_FAILED"),
        .localPlayerNotAuthenticated: (17066, "ERROR_LOCAL_PLAYER_NOT_AUTHENTICATED"),
        .invalidHostingLinkDomain: (17214, "ERROR_INVALID_HOSTING_LINK_DOMAIN"),
        .rejectedCredential: (17075, "ERROR_REJECTED_CREDENTIAL"),
        .gameKitNotLinked: (17076, "ERROR_GAME_KIT_NOT_LINKED"),
        .secondFactorRequired: (17078, "ERROR_SECOND_FACTOR_REQUIRED"),
        .missingMultiFactorSession: (17081, "ERROR_MISSING_MULTI_FACTOR_SESSION"),
        .missingMultiFactorInfo: (17082, "ERROR_MISSING_MULTI_FACTOR_INFO"),
        .invalidMultiFactorSession: (17083, "ERROR_INVALID_MULTI_FACTOR_SESSION"),
        .multiFactorInfoNotFound: (17084, "ERROR_MULTI_FACTOR_INFO_NOT_FOUND"),
        .adminRestrictedOperation: (17085, "ERROR_ADMIN_RESTRICTED_OPERATION"),
        .unverifiedEmail: (17086, "ERROR_UNVERIFIED_EMAIL"),
        .secondFactorAlreadyEnrolled: (17087, "ERROR_SECOND_FACTOR_ALREADY_ENROLLED"),
        .maximumSecondFactorCountExceeded: (17088, "ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED"),
        .unsupportedFirstFactor: (17089, "ERROR_UNSUPPORTED_FIRST_FACTOR"),
        .missingClientIdentifier: (17093, "ERROR_MISSING_CLIENT_IDENTIFIER"),
        .blockingCloudFunctionError: (17105, "ERROR_BLOCKING_CLOUD_FUNCTION_RETURNED_ERROR"),
        .recaptchaNotEnabled: (17200, "ERROR_RECAPTCHA_NOT_ENABLED"),
        .missingRecaptchaToken: (17201, "ERROR_MISSING_RECAPTCHA_TOKEN"),
        .invalidRecaptchaToken: (17202, "ERROR_INVALID_RECAPTCHA_TOKEN"),
        .invalidRecaptchaAction: (17203, "ERROR_INVALID_RECAPTCHA_ACTION"),
        .missingClientType: (17204, "ERROR_MISSING_CLIENT_TYPE"),
        .missingRecaptchaVersion: (17205, "ERROR_MISSING_RECAPTCHA_VERSION"),
        .invalidRecaptchaVersion: (17206, "ERROR_INVALID_RECAPTCHA_VERSION"),
        .invalidReqType: (17207, "ERROR_INVALID_REQ_TYPE"),
        .recaptchaSDKNotLinked: (17208, "ERROR_RECAPTCHA_SDK_NOT_LINKED"),
        .recaptchaSiteKeyMissing: (17209, "ERROR_RECAPTCHA_SITE_KEY_MISSING"),
        .recaptchaActionCreationFailed: (17210, "ERROR_RECAPTCHA_ACTION_CREATION_FAILED"),
        .passwordDoesNotMeetRequirements: (17211, "ERROR_PASSWORD_DOES_NOT_MEET_REQUIREMENTS"),
    ]
    /// Codes Firebase does not have.
    static let ours: [AuthErrorCode: (Int, String)] = [
        .missingPassword: (19001, "ERROR_MISSING_PASSWORD"),
        .invalidConfiguration: (19002, "ERROR_INVALID_CONFIGURATION"),
        .corruptStoredUser: (19003, "ERROR_CORRUPT_STORED_USER"),
        .accessGroupChoiceError: (19004, "ERROR_ACCESS_GROUP_CHOICE"),
    ]

    @Test(arguments: AuthErrorCode.allCases)
    func rawValueAndUserInfoName(_ code: AuthErrorCode) throws {
        let (rawValue, name) = try #require(Self.firebase[code] ?? Self.ours[code], "\(code) is in neither table")
        #expect(code.rawValue == rawValue)
        #expect(code.userInfoName == name)
        #expect(AuthErrorCode(rawValue: rawValue) == code)
        #expect((AuthError(code, "m") as NSError).code == rawValue)
        #expect((AuthError(code, "m") as NSError).userInfo[AuthErrors.userInfoNameKey] as? String == name)
    }

    @Test func everyCaseIsInExactlyOneTableAndOursAreOutsideFirebasesRange() {
        #expect(Set(Self.firebase.keys).union(Self.ours.keys) == Set(AuthErrorCode.allCases))
        #expect(Set(Self.firebase.keys).isDisjoint(with: Self.ours.keys))
        #expect(Self.ours.keys.allSatisfy { $0.rawValue >= 19000 })
        #expect(Set(AuthErrorCode.allCases.map(\.rawValue)).count == AuthErrorCode.allCases.count)
    }

    /// What logs, messages and the CLI print: the Swift case name, as before the codes became integers.
    @Test func namesAreTheCaseNames() {
        #expect(AuthErrorCode.allCases.map(\.name) == [
            "keychainError", "nullUser", "tenantIDMismatch", "networkError", "invalidAPIKey", "operationNotAllowed",
            "userNotFound", "userTokenExpired", "wrongPassword", "invalidEmail", "missingEmail", "missingPassword",
            "emailAlreadyInUse", "weakPassword", "invalidUserToken", "userDisabled", "invalidCredential",
            "tooManyRequests", "requiresRecentLogin", "invalidConfiguration", "corruptStoredUser",
            "accessGroupChoiceError", "invalidCustomToken", "customTokenMismatch", "accountExistsWithDifferentCredential",
            "providerAlreadyLinked", "noSuchProvider", "userMismatch", "credentialAlreadyInUse", "invalidProviderID",
            "unsupportedTenantOperation", "missingOrInvalidNonce", "expiredActionCode", "invalidActionCode",
            "invalidMessagePayload", "invalidSender", "invalidRecipientEmail", "missingIosBundleID", "missingAndroidPackageName",
            "unauthorizedDomain", "invalidContinueURI", "missingContinueURI", "emailChangeNeedsVerification",
            "webContextAlreadyPresented", "webContextCancelled", "invalidClientID", "webInternalError",
            "webSignInUserInteractionFailure",
            "appNotAuthorized", "missingPhoneNumber", "invalidPhoneNumber", "missingVerificationCode",
            "invalidVerificationCode", "missingVerificationID", "invalidVerificationID", "missingAppCredential",
            "invalidAppCredential", "sessionExpired", "quotaExceeded", "missingAppToken", "notificationNotForwarded",
            "appNotVerified", "captchaCheckFailed", "appVerificationUserInteractionFailure", "webNetworkRequestFailed",
            "localPlayerNotAuthenticated", "invalidHostingLinkDomain", "rejectedCredential", "gameKitNotLinked",
            "secondFactorRequired", "missingMultiFactorSession", "missingMultiFactorInfo", "invalidMultiFactorSession",
            "multiFactorInfoNotFound", "adminRestrictedOperation", "unverifiedEmail", "secondFactorAlreadyEnrolled",
            "maximumSecondFactorCountExceeded", "unsupportedFirstFactor", "missingClientIdentifier",
            "blockingCloudFunctionError", "recaptchaNotEnabled", "missingRecaptchaToken", "invalidRecaptchaToken",
            "invalidRecaptchaAction", "missingClientType", "missingRecaptchaVersion", "invalidRecaptchaVersion",
            "invalidReqType", "recaptchaSDKNotLinked", "recaptchaSiteKeyMissing", "recaptchaActionCreationFailed",
            "passwordDoesNotMeetRequirements",
            "malformedJWT", "internalError",
        ])
        #expect(AuthErrorCode.allCases.allSatisfy { "\($0)" == $0.name && $0.description == $0.name })
        #expect(AuthError(.networkError, "offline").description == "networkError: offline")
    }
}
