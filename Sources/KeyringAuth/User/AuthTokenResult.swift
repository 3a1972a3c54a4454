import Foundation

/// An ID token and what it says, as Firebase's `AuthTokenResult`: decoded locally from the token
/// (no request), as Firebase's SDKs do; the signature is not checked (servers verify tokens, apps
/// read them). ``User/getIDTokenResult(forcingRefresh:)`` returns it.
public struct AuthTokenResult: Sendable {
    /// The ID token (a JWT), to send to the app's servers.
    public let token: String
    /// When the token expires (`exp`).
    public let expirationDate: Date
    /// When the user signed in (`auth_time`); not changed by a refresh.
    public let authDate: Date
    /// When the token was issued (`iat`): the last refresh.
    public let issuedAtDate: Date
    /// How the user signed in (`firebase.sign_in_provider`): `password`, `anonymous`, `custom`, `google.com`, …
    public let signInProvider: String
    /// The second factor of the sign-in (`firebase.sign_in_second_factor`), or the empty string.
    public let signInSecondFactor: String
    /// Every claim of the token, the standard ones and the custom claims set on the account (with the
    /// Admin SDK, or the bundled emulator's `setCustomClaims`): strings, `Bool`, `Int`, `Double`, arrays and
    /// dictionaries of them. JSON `null` values are left out.
    public let claims: [String: any Sendable]

    /// Decodes `token`.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/malformedJWT`` when it is not a JWT with the claims
    ///   Firebase's ID tokens carry (`exp`, `iat`, `auth_time`, `firebase.sign_in_provider`), or exceeds
    ///   the decoding limits.
    package init(token: String) throws(AuthError) {
        let decoded = try IDTokenClaims(decoding: token)
        guard let provider = decoded.firebaseField("sign_in_provider") else {
            throw IDTokenClaims.malformed("it has no firebase.sign_in_provider")
        }
        self.token = token
        expirationDate = try decoded.date("exp")
        authDate = try decoded.date("auth_time")
        issuedAtDate = try decoded.date("iat")
        signInProvider = provider
        signInSecondFactor = decoded.firebaseField("sign_in_second_factor") ?? ""
        claims = decoded.claims
    }
}
