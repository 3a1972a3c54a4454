/// The identity service ``Auth`` signs users in with: Firebase's Identity Toolkit REST API,
/// its local emulator, or a test double. Every failure is an ``AuthError`` with Firebase's code.
///
/// Each request carries an `AuthRequestContext`: the tenant goes in the body of the requests that
/// take one (sign-up, the sign-ins, `accounts:update`), the language code in every request.
package protocol AuthBackend: Sendable {
    /// The API key requests are made with; users signed in through another key are foreign.
    var apiKey: String { get }

    /// Creates an anonymous account (`accounts:signUp` with no credential).
    func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn
    /// Creates an email/password account (`accounts:signUp`).
    func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn
    /// Signs in with email and password (`accounts:signInWithPassword`).
    func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn
    /// Signs in with an identity provider's tokens (`accounts:signInWithIdp`); with `idToken`, links
    /// the provider to that user's account instead. `creatingAccount` false (reauthentication: Identity
    /// Toolkit's `autoCreate`) refuses a credential of no account with ``AuthErrorCode/userNotFound``.
    func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn
    /// Begins an identity provider's sign-in under the Firebase project's own registration with it
    /// (`accounts:createAuthUri` with `providerId`): the provider's authorization URL, which sends the browser back
    /// to `continueURI`, and the session ``signIn(with:linkingTo:creatingAccount:context:)`` must present.
    func startProviderSignIn(_ request: ProviderSignInRequest, context: AuthRequestContext) async throws(AuthError) -> ProviderSignInStart
    /// Signs in with a custom token the app's server minted (`accounts:signInWithCustomToken`).
    func signIn(customToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn
    /// Gives the account of `idToken` an email and password (`accounts:signUp` with `idToken`).
    func link(idToken: String, email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn
    /// Describes the account an ID token belongs to (`accounts:lookup`).
    func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount
    /// Changes an account (`accounts:update`); returns new tokens when the backend issued them.
    func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens?
    /// Deletes an account (`accounts:delete`).
    func delete(idToken: String, context: AuthRequestContext) async throws(AuthError)
    /// Exchanges a refresh token for new tokens (the secure-token endpoint).
    func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens

    /// Has an email action code sent (`accounts:sendOobCode`).
    func sendOutOfBandCode(_ request: OutOfBandCodeRequest, context: AuthRequestContext) async throws(AuthError)
    /// How the account of `email` signs in (`accounts:createAuthUri` with `identifier` and `continueUri`): its
    /// `signinMethods` (`password`, `emailLink`, a provider's ID), none for an address of no account, and none at all
    /// on a project that protects against email enumeration.
    func signInMethods(forEmail email: String, continueURI: String, context: AuthRequestContext) async throws(AuthError) -> [String]
    /// The password policy of the project, or of the context's tenant (`GET v2/passwordPolicy`).
    func passwordPolicy(context: AuthRequestContext) async throws(AuthError) -> PasswordPolicyAnswer
    /// Describes an email action code (`accounts:resetPassword` without a password) or, with `newPassword`, resets
    /// the password with a password-reset code (`accounts:resetPassword`), using it up.
    func resetPassword(oobCode: String, newPassword: String?, context: AuthRequestContext) async throws(AuthError) -> ActionCodeInfo
    /// Applies an email action code that needs nothing else, such as an email verification (`accounts:update`
    /// with `oobCode`), using it up; returns the uid of the account it changed, when the backend says.
    func applyActionCode(_ oobCode: String, context: AuthRequestContext) async throws(AuthError) -> String?
    /// Signs in with an email link's code (`accounts:signInWithEmailLink`), creating the account on its first
    /// sign-in; with `idToken`, gives that user's account the email address instead.
    func signIn(email: String, emailLinkCode: String, linkingTo idToken: String?, context: AuthRequestContext) async throws(AuthError)
        -> BackendSignIn
    /// Finishes a sign-in that asked for a second factor (``AuthErrorCode/secondFactorRequired``) with a TOTP
    /// code for one of the account's factors (`v2/accounts/mfaSignIn:finalize`).
    func finalizeSecondFactorSignIn(
        pendingCredential: String, enrollmentID: String, oneTimePassword: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn
    /// Begins enrolling a TOTP second factor for the user of `idToken` (`v2/accounts/mfaEnrollment:start`): the
    /// secret to show the user.
    func startTOTPEnrollment(idToken: String, context: AuthRequestContext) async throws(AuthError) -> TOTPSecret
    /// Finishes the enrollment with the authenticator app's first code (`mfaEnrollment:finalize`); returns the new tokens.
    func finalizeTOTPEnrollment(
        idToken: String, secret: TOTPSecret, oneTimePassword: String, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens
    /// Removes a second factor (`mfaEnrollment:withdraw`); returns the new tokens.
    func withdrawSecondFactor(idToken: String, enrollmentID: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens

    /// Where the phone verification page loads reCAPTCHA's scripts from, without a trailing slash.
    var recaptchaScriptBase: String { get }
    /// The project's reCAPTCHA Enterprise set-up for web clients (`GET v2/recaptchaConfig`).
    func recaptchaConfig(context: AuthRequestContext) async throws(AuthError) -> RecaptchaConfig
    /// The project's reCAPTCHA v2 site key (`GET v1/recaptchaParams`).
    func recaptchaSiteKey(context: AuthRequestContext) async throws(AuthError) -> String
    /// Has an SMS code sent (`accounts:sendVerificationCode`, `mfaEnrollment:start` or `mfaSignIn:start`); returns the
    /// verification ID (`sessionInfo`).
    func sendVerificationCode(
        _ request: PhoneCodeRequest, verification: AppVerificationFields, context: AuthRequestContext
    ) async throws(AuthError) -> String
    /// Checks a phone credential (`accounts:signInWithPhoneNumber`): signs in or up, or with `idToken` links or changes
    /// that user's number. A number another account has throws ``AuthErrorCode/credentialAlreadyInUse`` carrying a
    /// credential of the answer's temporary proof.
    func signIn(
        with credential: PhoneAuthCredential, operation: PhoneOperation, idToken: String?, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn
    /// Finishes enrolling an SMS second factor (`mfaEnrollment:finalize` with `phoneVerificationInfo`); the new tokens.
    func finalizePhoneEnrollment(
        idToken: String, credential: PhoneAuthCredential, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens
    /// Finishes a sign-in with an SMS second factor (`mfaSignIn:finalize` with `phoneVerificationInfo`).
    func finalizePhoneSecondFactorSignIn(
        pendingCredential: String, credential: PhoneAuthCredential, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn
}

// The sign-in methods a backend may leave out, and the calls of earlier versions.
extension AuthBackend {
    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend signs in with no identity provider.
    package func startProviderSignIn(
        _ request: ProviderSignInRequest, context: AuthRequestContext
    ) async throws(AuthError) -> ProviderSignInStart {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not sign in with identity providers (\(request.providerID)).")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend signs in with no identity provider.
    package func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not sign in with identity providers (\(credential.provider)).")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no second factors.
    package func finalizeSecondFactorSignIn(
        pendingCredential: String, enrollmentID: String, oneTimePassword: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no second factors.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no second factors.
    package func startTOTPEnrollment(idToken: String, context: AuthRequestContext) async throws(AuthError) -> TOTPSecret {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no second factors.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no second factors.
    package func finalizeTOTPEnrollment(
        idToken: String, secret: TOTPSecret, oneTimePassword: String, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no second factors.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no second factors.
    package func withdrawSecondFactor(idToken: String, enrollmentID: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no second factors.")
    }

    /// Google's reCAPTCHA.
    package var recaptchaScriptBase: String { "https://www.google.com/recaptcha" }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no reCAPTCHA set-up.
    package func recaptchaConfig(context: AuthRequestContext) async throws(AuthError) -> RecaptchaConfig {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no reCAPTCHA set-up.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no reCAPTCHA set-up.
    package func recaptchaSiteKey(context: AuthRequestContext) async throws(AuthError) -> String {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no reCAPTCHA set-up.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no phone numbers.
    package func sendVerificationCode(
        _ request: PhoneCodeRequest, verification: AppVerificationFields, context: AuthRequestContext
    ) async throws(AuthError) -> String {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) sends no SMS codes.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no phone numbers.
    package func signIn(
        with credential: PhoneAuthCredential, operation: PhoneOperation, idToken: String?, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not sign in with phone numbers.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no phone numbers.
    package func finalizePhoneEnrollment(
        idToken: String, credential: PhoneAuthCredential, displayName: String?, context: AuthRequestContext
    ) async throws(AuthError) -> AuthTokens {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no SMS second factors.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no phone numbers.
    package func finalizePhoneSecondFactorSignIn(
        pendingCredential: String, credential: PhoneAuthCredential, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no SMS second factors.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend takes no custom tokens.
    package func signIn(customToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not sign in with custom tokens.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend links no email and password.
    package func link(
        idToken: String, email: String, password: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not link an email and password to an account.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend sends no email action codes.
    package func sendOutOfBandCode(_ request: OutOfBandCodeRequest, context: AuthRequestContext) async throws(AuthError) {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) sends no email action codes.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend does not say how an address signs in.
    package func signInMethods(forEmail email: String, continueURI: String, context: AuthRequestContext) async throws(AuthError) -> [String] {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not say how an address signs in.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no password policy.
    package func passwordPolicy(context: AuthRequestContext) async throws(AuthError) -> PasswordPolicyAnswer {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no password policy.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no email action codes.
    package func resetPassword(
        oobCode: String, newPassword: String?, context: AuthRequestContext
    ) async throws(AuthError) -> ActionCodeInfo {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no email action codes.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend has no email action codes.
    package func applyActionCode(_ oobCode: String, context: AuthRequestContext) async throws(AuthError) -> String? {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) has no email action codes.")
    }

    /// Refused with ``AuthErrorCode/operationNotAllowed``: this backend signs in with no email links.
    package func signIn(
        email: String, emailLinkCode: String, linkingTo idToken: String?, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        throw AuthError(.operationNotAllowed, "\(type(of: self)) does not sign in with email links.")
    }

    /// `signUpAnonymously(context:)` in `tenantID`.
    package func signUpAnonymously(tenantID: String?) async throws(AuthError) -> BackendSignIn {
        try await signUpAnonymously(context: AuthRequestContext(tenantID: tenantID))
    }

    /// `signUp(email:password:context:)` in `tenantID`.
    package func signUp(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn {
        try await signUp(email: email, password: password, context: AuthRequestContext(tenantID: tenantID))
    }

    /// `signIn(email:password:context:)` in `tenantID`.
    package func signIn(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn {
        try await signIn(email: email, password: password, context: AuthRequestContext(tenantID: tenantID))
    }

    /// `lookUp(idToken:context:)` with no tenant or language.
    package func lookUp(idToken: String) async throws(AuthError) -> BackendAccount {
        try await lookUp(idToken: idToken, context: AuthRequestContext())
    }

    /// `update(idToken:changes:context:)` with no tenant or language.
    package func update(idToken: String, changes: AccountChanges) async throws(AuthError) -> AuthTokens? {
        try await update(idToken: idToken, changes: changes, context: AuthRequestContext())
    }

    /// `delete(idToken:context:)` with no tenant or language.
    package func delete(idToken: String) async throws(AuthError) {
        try await delete(idToken: idToken, context: AuthRequestContext())
    }

    /// `refresh(refreshToken:context:)` with no tenant or language.
    package func refresh(refreshToken: String) async throws(AuthError) -> AuthTokens {
        try await refresh(refreshToken: refreshToken, context: AuthRequestContext())
    }
}
