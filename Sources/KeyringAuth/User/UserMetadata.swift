import Foundation

/// When an account was created and last signed in.
public struct UserMetadata: Hashable, Sendable {
    public var creationDate: Date?
    public var lastSignInDate: Date?
}
