import Foundation

/// The domain of App Check's errors as `NSError`s, as Firebase's.
public let AppCheckErrorDomain = "com.firebase.appCheck"

/// App Check's error codes, with Firebase's values.
public enum AppCheckErrorCode: Int, Sendable, CaseIterable {
    /// Anything else: a provider's own failure, or an answer that cannot be read.
    case unknown = 0
    /// The App Check service (or the emulator) could not be reached, or refused the exchange.
    case serverUnreachable = 1
    /// The app's options or the provider's set-up are missing something; the message says what.
    case invalidConfiguration = 2
    /// The keychain could not keep the token.
    case keychain = 3
    /// What was asked is not available on this platform.
    case unsupported = 4
}
