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

    /// Firebase's calls throw untyped, as Firebase's; what they throw is always an `AuthError`, so a plain
    /// `catch` gets the typed error with one cast.
    @Test func aPlainCatchCastsToTheTypedError() async {
        let auth = offlineAuth()
        var caught: AuthErrorCode?
        do {
            _ = try await auth.signInAnonymously()
        } catch {
            caught = (error as? AuthError)?.code
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
    /// Firebase's raw value and `errorCodeString` of each code, from `scripts/firebase-auth-error-names.txt`.
    static let firebase: [AuthErrorCode: (Int, String)] = {
        let entries = (try? FirebaseErrorMappingTests.list("firebase-auth-error-names.txt")) ?? []
        return Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
            AuthErrorCode(rawValue: Int(entry[0]) ?? -1).map { ($0, (Int(entry[0])!, entry[2])) }
        })
    }()
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
