import SecretKeychain

/// An authentication failure: a Firebase-style code, a message that says what to do, and for
/// ``AuthErrorCode/keychainError`` the keychain's own error.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: AuthErrorCode
    public var message: String
    /// The underlying keychain failure, for ``AuthErrorCode/keychainError``.
    public var keychainError: KeychainError?

    public init(_ code: AuthErrorCode, _ message: String, keychainError: KeychainError? = nil) {
        self.code = code
        self.message = message
        self.keychainError = keychainError
    }

    /// A keychain failure, carrying the keychain's error and its advice.
    public static func keychain(_ error: KeychainError) -> AuthError {
        AuthError(.keychainError, error.description, keychainError: error)
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Runs a keychain call, turning its failure into ``AuthErrorCode/keychainError``.
    @discardableResult
    static func catchingKeychain<Result>(_ body: () throws(KeychainError) -> Result) throws(AuthError) -> Result {
        do throws(KeychainError) { return try body() } catch { throw .keychain(error) }
    }
}
