import Foundation

/// Tokens the identity backend issued for a user.
public struct AuthTokens: Hashable, Sendable, Codable {
    /// The ID token (a JWT) apps send to their servers.
    public var idToken: String
    /// The long-lived token that gets new ID tokens.
    public var refreshToken: String
    /// When ``idToken`` expires.
    public var expirationDate: Date

    public init(idToken: String, refreshToken: String, expirationDate: Date) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expirationDate = expirationDate
    }
}
