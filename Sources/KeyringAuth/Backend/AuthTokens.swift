import Foundation

/// Tokens the identity backend issued for a user.
package struct AuthTokens: Hashable, Sendable, Codable {
    /// The ID token (a JWT) apps send to their servers.
    package var idToken: String
    /// The long-lived token that gets new ID tokens.
    package var refreshToken: String
    /// When `idToken` expires.
    package var expirationDate: Date

    package init(idToken: String, refreshToken: String, expirationDate: Date) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expirationDate = expirationDate
    }
}
