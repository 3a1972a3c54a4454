import Foundation
import SecretKeychain

/// The `NSError` form, as Firebase's SDK reports its errors: `(error as NSError).code` is the
/// ``AuthErrorCode``'s raw value, and `catch let error as NSError` catches an ``AuthError``.
extension AuthError: CustomNSError, LocalizedError {
    /// ``AuthErrors/domain``, `FIRAuthErrorDomain`.
    public static var errorDomain: String { AuthErrors.domain }

    /// The code's raw value, for example `17020` for ``AuthErrorCode/networkError``.
    public var errorCode: Int { code.rawValue }

    /// As Firebase's `AuthErrorUtils` fills it: `NSLocalizedDescriptionKey` (the ``message``) and
    /// ``AuthErrors/userInfoNameKey`` (``AuthErrorCode/userInfoName``, for example
    /// `ERROR_NETWORK_REQUEST_FAILED`); for ``AuthErrorCode/weakPassword`` also `NSLocalizedFailureReasonErrorKey`
    /// (the service's reason, `Password should be at least 6 characters`); for ``AuthErrorCode/internalError``
    /// from a reply the package does not know, `NSUnderlyingErrorKey` (an `NSError` of domain
    /// `FIRAuthInternalErrorDomain`, code 3, whose `FIRAuthErrorUserInfoDeserializedResponseKey` holds the
    /// reply's `error` object); for a keychain failure `NSLocalizedFailureReasonErrorKey` (the keychain's
    /// message) and `NSUnderlyingErrorKey` (the ``keychainError`` as an `NSError`);
    /// ``AuthErrors/userInfoUpdatedCredentialKey`` (an ``OAuthCredential``) and ``AuthErrors/userInfoEmailKey``
    /// when the error carries them.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: message,
            AuthErrors.userInfoNameKey: code.userInfoName,
        ]
        if code == .weakPassword, let serverDetail, !serverDetail.isEmpty {
            userInfo[NSLocalizedFailureReasonErrorKey] = serverDetail
        }
        if code == .internalError, let reply = serverResponse.flatMap(Self.deserialized) {
            userInfo[NSUnderlyingErrorKey] = NSError(
                domain: "FIRAuthInternalErrorDomain", code: 3, userInfo: ["FIRAuthErrorUserInfoDeserializedResponseKey": reply])
        }
        if let keychainError {
            userInfo[NSLocalizedFailureReasonErrorKey] = keychainError.description
            userInfo[NSUnderlyingErrorKey] = Self.bridge(keychainError)
        }
        if let updatedCredential { userInfo[AuthErrors.userInfoUpdatedCredentialKey] = updatedCredential }
        if let email { userInfo[AuthErrors.userInfoEmailKey] = email }
        if let multiFactorResolver { userInfo[AuthErrors.userInfoMultiFactorResolverKey] = multiFactorResolver }
        return userInfo
    }

    /// The ``message``, so that `error.localizedDescription` says what to do.
    public var errorDescription: String? { message }

    /// The reply's `error` object (the reply itself when it has none), as `JSONSerialization` reads it.
    private static func deserialized(_ reply: Data) -> Any? {
        guard let object = try? JSONSerialization.jsonObject(with: reply) else { return nil }
        return (object as? [String: Any])?["error"] ?? object
    }

    /// The keychain's error as an `NSError`: the domain and code Swift gives it
    /// (`SecretKeychain.KeychainError`), its message as the description.
    private static func bridge(_ error: KeychainError) -> NSError {
        let bridged = error as NSError
        return NSError(domain: bridged.domain, code: bridged.code, userInfo: [NSLocalizedDescriptionKey: error.description])
    }
}

#if !canImport(ObjectiveC)
// Without the Objective-C runtime (Linux), a Swift error is not an `NSError` to a dynamic cast:
// `catch let error as NSError` skips it, or, when the `do` body throws `AuthError` (typed throws),
// traps with "Could not cast value of type 'AuthError' to 'NSError'". Bridging as Foundation's own
// value types do (String ↔ NSString) makes those casts succeed with the `NSError` form above, and
// turns that `NSError` back into the same `AuthError`.
extension AuthError: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSError

    public func _bridgeToObjectiveC() -> NSError { BridgedAuthError(self) }

    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout AuthError?) {
        guard _conditionallyBridgeFromObjectiveC(source, result: &result) else {
            preconditionFailure("\(source.domain) \(source.code) is not an AuthError")
        }
    }

    /// Only an `NSError` made from an `AuthError` is one; any other `NSError` (even in `FIRAuthErrorDomain`) is not.
    @discardableResult
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout AuthError?) -> Bool {
        result = (source as? BridgedAuthError)?.authError
        return result != nil
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> AuthError {
        guard let source else { preconditionFailure("No NSError to bridge to an AuthError") }
        var result: AuthError?
        _forceBridgeFromObjectiveC(source, result: &result)
        return result!
    }
}

/// An ``AuthError``'s `NSError` form that keeps the error itself, so that casting it back is lossless.
private final class BridgedAuthError: NSError, @unchecked Sendable {
    let authError: AuthError

    init(_ authError: AuthError) {
        self.authError = authError
        super.init(domain: AuthError.errorDomain, code: authError.errorCode, userInfo: authError.errorUserInfo)
    }

    required init?(coder: NSCoder) { nil }
}
#endif
