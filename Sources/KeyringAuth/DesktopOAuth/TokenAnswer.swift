import Foundation

/// Reads a token endpoint's answer (RFC 6749 §5) into a credential, checking the ID token's claims that
/// tie it to this sign-in; kept apart from the transport so that literal answers can be tested.
enum TokenAnswer {
    /// The largest answer read; a token answer is a few kilobytes.
    static let maximumBytes = 64 * 1024

    /// The credential in a token answer of `status`, or the error it stands for.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidCredential`` (the code refused, or tokens that do not fit),
    ///   ``AuthErrorCode/invalidClientID``, ``AuthErrorCode/missingOrInvalidNonce``, ``AuthErrorCode/networkError``
    ///   (HTTP 5xx), ``AuthErrorCode/internalError`` (an answer that cannot be read).
    static func credential(
        status: Int, body: Data, provider: DesktopOAuthProvider, clientID: String, hashedNonce: String, rawNonce: String
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
            try checkIDToken(idToken, provider: provider, clientID: clientID, hashedNonce: hashedNonce)
        } else if provider.scopes.contains("openid") {
            throw AuthError(.invalidCredential, "The \(name) token endpoint answered no ID token although openid was asked for.")
        }
        let credential = OAuthCredential(
            providerID: provider.providerID, idToken: idToken, accessToken: accessToken, rawNonce: idToken == nil ? nil : rawNonce)
        try credential.checkUsable()
        return credential
    }

    /// The claims that tie the ID token to this sign-in: the nonce sent, this client as audience, the issuer.
    private static func checkIDToken(_ token: String, provider: DesktopOAuthProvider, clientID: String, hashedNonce: String) throws(AuthError) {
        let name = provider.providerID
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= AuthCredential.maximumFieldBytes, parts.count == 3,
            let payload = PKCE.bytes(base64URL: parts[1]),
            let claims = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
        else {
            throw AuthError(.invalidCredential, "The \(name) ID token cannot be read as a JWT.")
        }
        guard claims["nonce"] as? String == hashedNonce else {
            throw AuthError(
                .missingOrInvalidNonce, "The \(name) ID token does not carry this sign-in's nonce; it was not issued for it. Sign in again.")
        }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard audience.contains(clientID) else {
            throw AuthError(.invalidCredential, "The \(name) ID token was issued to another client than \(clientID).")
        }
        if let issuer = provider.issuer, !provider.isIssuer(claims["iss"] as? String) {
            throw AuthError(.invalidCredential, "The \(name) ID token was issued by another issuer than \(issuer).")
        }
    }
}
