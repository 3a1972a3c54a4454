import Foundation

/// Reads a token endpoint's answer (RFC 6749 §5) into a credential, checking the ID token's claims that
/// tie it to this sign-in; kept apart from the transport so that literal answers can be tested.
enum TokenAnswer {
    /// The largest answer read; a token answer is a few kilobytes.
    static let maximumBytes = 64 * 1024
    /// How far the provider's clock and this machine's may disagree when the ID token's times are checked.
    static let clockSkew: TimeInterval = 5 * 60

    /// The credential in a token answer of `status`, or the error it stands for.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidCredential`` (the code refused, or tokens that do not fit),
    ///   ``AuthErrorCode/invalidClientID``, ``AuthErrorCode/missingOrInvalidNonce``, ``AuthErrorCode/networkError``
    ///   (HTTP 5xx), ``AuthErrorCode/internalError`` (an answer that cannot be read).
    static func credential(
        status: Int, body: Data, provider: DesktopOAuthProvider, clientID: String, hashedNonce: String, rawNonce: String,
        now: Date = Date()
    ) throws(AuthError) -> OAuthCredential {
        let name = provider.providerID
        guard body.count <= maximumBytes else {
            throw AuthError(.internalError, "The \(name) token endpoint answered \(body.count) bytes, more than the \(maximumBytes) read.")
        }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        guard status == 200 else {
            if status >= 500 {
                throw AuthError(.networkError, "The \(name) token endpoint failed (HTTP \(status)); sign in again later.")
            }
            let error = DesktopOAuthFlow.printable(object?["error"] as? String ?? "HTTP \(status)", limit: 64)
            let detail = (object?["error_description"] as? String).map { " (\(DesktopOAuthFlow.printable($0, limit: 200)))" } ?? ""
            switch error {
            case "invalid_client", "unauthorized_client":
                throw AuthError(
                    .invalidClientID, "\(name) refused the OAuth client: \(error)\(detail); check the client ID and secret.")
            case "invalid_grant":
                throw AuthError(
                    .invalidCredential, "\(name) refused the authorization code: \(error)\(detail); start the sign-in again.")
            default:
                throw AuthError(.invalidCredential, "\(name) refused the code exchange: \(error)\(detail).")
            }
        }
        guard let object else {
            throw AuthError(.internalError, "The \(name) token endpoint's answer is not a JSON object.")
        }
        let idToken = object["id_token"] as? String
        let accessToken = object["access_token"] as? String
        guard idToken?.isEmpty == false || accessToken?.isEmpty == false else {
            throw AuthError(.invalidCredential, "The \(name) token endpoint answered no ID token and no access token.")
        }
        if let idToken {
            try checkIDToken(idToken, provider: provider, clientID: clientID, hashedNonce: hashedNonce, now: now)
        } else if provider.scopes.contains("openid") {
            throw AuthError(.invalidCredential, "The \(name) token endpoint answered no ID token although openid was asked for.")
        }
        let credential = OAuthCredential(
            providerID: provider.providerID, idToken: idToken, accessToken: accessToken, rawNonce: idToken == nil ? nil : rawNonce)
        try credential.checkUsable()
        return credential
    }

    /// The claims that tie the ID token to this sign-in (OpenID Connect Core 3.1.3.7): the nonce sent, this
    /// client as audience (and as `azp` when there are several audiences, or an `azp` at all), the issuer, and
    /// a time of issue and an expiry that hold now, within ``clockSkew``. Decoded with ``IDTokenClaims``' limits.
    private static func checkIDToken(
        _ token: String, provider: DesktopOAuthProvider, clientID: String, hashedNonce: String, now: Date
    ) throws(AuthError) {
        let name = provider.providerID
        guard token.utf8.count <= AuthCredential.maximumFieldBytes, let decoded = try? IDTokenClaims(decoding: token) else {
            throw AuthError(.invalidCredential, "The \(name) ID token cannot be read as a JWT.")
        }
        let claims = decoded.claims
        guard claims["nonce"] as? String == hashedNonce else {
            throw AuthError(
                .missingOrInvalidNonce, "The \(name) ID token does not carry this sign-in's nonce; it was not issued for it. Sign in again.")
        }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [any Sendable])?.compactMap { $0 as? String } ?? []
        guard audience.contains(clientID) else {
            throw AuthError(.invalidCredential, "The \(name) ID token was issued to another client than \(clientID).")
        }
        if audience.count > 1 || claims["azp"] != nil, claims["azp"] as? String != clientID {
            throw AuthError(
                .invalidCredential, "The \(name) ID token names several audiences, and its authorized party (azp) is not \(clientID).")
        }
        // A multi-tenant issuer is checked with the token's own tenant (`tid`), as MSAL checks Microsoft's.
        if let issuer = provider.issuer, !provider.isIssuer(claims["iss"] as? String, tenant: claims["tid"] as? String ?? "") {
            throw AuthError(.invalidCredential, "The \(name) ID token was issued by another issuer than \(issuer).")
        }
        let expiry: Date, issued: Date
        do throws(AuthError) {
            (expiry, issued) = (try decoded.date("exp"), try decoded.date("iat"))
        } catch {
            throw AuthError(.invalidCredential, "The \(name) ID token has no valid expiry (exp) or time of issue (iat).")
        }
        guard expiry.timeIntervalSince(now) > -clockSkew else {
            throw AuthError(.invalidCredential, "The \(name) ID token expired \(Int(now.timeIntervalSince(expiry))) s ago; sign in again.")
        }
        guard issued.timeIntervalSince(now) <= clockSkew else {
            throw AuthError(
                .invalidCredential,
                "The \(name) ID token was issued \(Int(issued.timeIntervalSince(now))) s in the future; check this machine's clock, then sign in again.")
        }
    }
}
