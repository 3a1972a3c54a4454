import Foundation
import SecretKeychain

/// An authentication failure: a Firebase-style code, a message that says what to do, and for
/// ``AuthErrorCode/keychainError`` the keychain's own error.
///
/// Catch it typed (`catch let error as AuthError where error.code == .networkError`), or as Firebase
/// apps do, as an `NSError` in ``AuthErrors/domain`` whose `code` is the ``AuthErrorCode``'s raw value
/// (see ``errorUserInfo`` for its `userInfo`).
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: AuthErrorCode
    /// What happened and what to do about it.
    public var message: String
    /// The underlying keychain failure, for ``AuthErrorCode/keychainError``.
    public var keychainError: KeychainError?
    /// For ``AuthErrorCode/credentialAlreadyInUse`` and ``AuthErrorCode/accountExistsWithDifferentCredential``:
    /// the credential as the service returned it, which signs in to the account that already has it (Firebase's
    /// `AuthErrors.userInfoUpdatedCredentialKey`): an ``OAuthCredential`` of an identity provider, or a
    /// ``PhoneAuthCredential`` of a phone number's temporary proof.
    public var updatedCredential: AuthCredential?
    /// For ``AuthErrorCode/credentialAlreadyInUse``, ``AuthErrorCode/accountExistsWithDifferentCredential``
    /// and ``AuthErrorCode/emailAlreadyInUse``: the email address of the existing account, when the
    /// service named it (Firebase's `AuthErrors.userInfoEmailKey`).
    public var email: String?
    /// For ``AuthErrorCode/secondFactorRequired``: what finishes the sign-in with a second factor (Firebase's
    /// `AuthErrorUserInfoMultiFactorResolverKey`).
    public var multiFactorResolver: MultiFactorResolver?
    /// For ``AuthErrorCode/secondFactorRequired`` from a backend: the first factor's pending credential and the
    /// account's factors, from which ``Auth`` makes ``multiFactorResolver``.
    package var secondFactorChallenge: SecondFactorChallenge?
    /// What the identity service said after its error code's colon (`WEAK_PASSWORD : Password should be at
    /// least 6 characters`), which Firebase gives a weak password's `NSLocalizedFailureReasonErrorKey`.
    package var serverDetail: String?
    /// The identity service's error reply (JSON) when its code is unknown here, which Firebase gives an
    /// ``AuthErrorCode/internalError``'s `NSUnderlyingErrorKey`.
    package var serverResponse: Data?

    /// A failure of kind `code` that says `message`.
    public init(
        _ code: AuthErrorCode, _ message: String, keychainError: KeychainError? = nil, updatedCredential: AuthCredential? = nil,
        email: String? = nil
    ) {
        self.code = code
        self.message = message
        self.keychainError = keychainError
        self.updatedCredential = updatedCredential
        self.email = email
    }

    /// A keychain failure, carrying the keychain's error and its advice.
    public static func keychain(_ error: KeychainError) -> AuthError {
        AuthError(.keychainError, error.description, keychainError: error)
    }

    /// `name: message`, for example `networkError: …`.
    public var description: String { "\(code.name): \(message)" }

    /// Runs a keychain call, turning its failure into ``AuthErrorCode/keychainError``.
    @discardableResult
    static func catchingKeychain<Result>(_ body: () throws(KeychainError) -> Result) throws(AuthError) -> Result {
        do throws(KeychainError) { return try body() } catch { throw .keychain(error) }
    }
}

extension AuthError {
    /// Runs a call of Firebase's shape, which throws untyped as Firebase's does but only ever an ``AuthError``,
    /// where the caller needs the error typed.
    package static func typed<Result>(_ body: () async throws -> Result) async throws(AuthError) -> Result {
        do {
            return try await body()
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.internalError, "Unexpected error (\(error)); this is a bug in KeyringAuth.")
        }
    }
}
