import Foundation

/// What a sign-in returns, as Firebase's `AuthDataResult`.
public struct AuthDataResult: Sendable {
    public let user: User
}
