import Foundation

/// An App Check failure: Firebase's code, and a message that says what happened and what to do. An `NSError` of
/// ``AppCheckErrorDomain`` when bridged, as Firebase's errors are.
public struct AppCheckError: Error, Sendable, CustomStringConvertible, CustomNSError {
    public let code: AppCheckErrorCode
    public let message: String

    public init(_ code: AppCheckErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "AppCheckError.\(code): \(message)" }

    public static var errorDomain: String { AppCheckErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
