import Foundation

/// A credential of an OAuth 2 or OpenID Connect provider (Google, GitHub, Apple, Microsoft, an
/// `oidc.*` provider), as Firebase's `OAuthCredential`: the provider's ID token and/or access token,
/// sent to `accounts:signInWithIdp`. Made by ``OAuthProvider``, ``GoogleAuthProvider`` or
/// ``GitHubAuthProvider``; ``AuthDataResult/credential`` and ``AuthError/updatedCredential`` give
/// one back.
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    /// The provider's ID token (an OpenID Connect JWT), if any.
    public let idToken: String?
    /// The provider's access token, if any.
    public let accessToken: String?
    /// The OAuth 1 token secret (Twitter); `nil` for every other provider.
    public let secret: String?
    /// The nonce whose SHA-256 the ID token carries (Apple, some OIDC providers).
    let rawNonce: String?
    /// The provider's answer to a sign-in Firebase began (``OAuthProvider/credential(with:)``): the URL the browser
    /// came back to (`requestUri`), and the `sessionId` of the `accounts:createAuthUri` that began it. Never logged.
    let providerAnswer: (requestURI: String, sessionID: String)?

    init(providerID: String, idToken: String?, accessToken: String?, secret: String? = nil, rawNonce: String? = nil) {
        // An empty string is no token at all, as Firebase's SDKs treat it.
        self.idToken = idToken?.isEmpty == false ? idToken : nil
        self.accessToken = accessToken?.isEmpty == false ? accessToken : nil
        self.secret = secret?.isEmpty == false ? secret : nil
        self.rawNonce = rawNonce?.isEmpty == false ? rawNonce : nil
        providerAnswer = nil
        super.init(provider: providerID)
    }

    /// A credential of the provider's answer to a sign-in begun with `accounts:createAuthUri`, as Firebase's
    /// `OAuthCredential(withProviderID:sessionID:OAuthResponseURLString:)`: `accounts:signInWithIdp` gets the URL as
    /// its `requestUri` and the session.
    init(providerID: String, sessionID: String, responseURL: String) {
        (idToken, accessToken, secret, rawNonce) = (nil, nil, nil, nil)
        providerAnswer = (responseURL, sessionID)
        super.init(provider: providerID)
    }

    override var comparableFields: [String?] {
        [provider, idToken, accessToken, secret, rawNonce, providerAnswer?.requestURI, providerAnswer?.sessionID]
    }

    /// Provider IDs that name a sign-in method which is not an identity provider's.
    static let reservedProviderIDs: Set<String> = ["password", "phone", "anonymous", "custom", "firebase", "emailLink"]

    /// Refuses what cannot be an identity provider's ID in Firebase: lower-case letters, digits, `.`, `-` and
    /// `_`, in parts joined by dots (`google.com`, `oidc.<name>`), none of the reserved IDs.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidProviderID`` saying what an ID looks like.
    package static func checkProviderID(_ provider: String) throws(AuthError) {
        let allowed = provider.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-" || scalar == "_"
        }
        let parts = provider.split(separator: ".", omittingEmptySubsequences: false)
        guard !provider.isEmpty, provider.utf8.count <= 128, allowed, parts.count > 1, !parts.contains(where: \.isEmpty),
            !reservedProviderIDs.contains(provider)
        else {
            throw AuthError(
                .invalidProviderID,
                "\(String(reflecting: provider)) is not an identity provider's ID; use one such as google.com, github.com, "
                    + "apple.com, microsoft.com or oidc.<name> (lower case), or EmailAuthProvider for email and password.")
        }
    }

    override func checkUsable() throws(AuthError) {
        try Self.checkProviderID(provider)
        try Self.checkField(idToken, "ID token", code: .invalidCredential)
        try Self.checkField(accessToken, "access token", code: .invalidCredential)
        try Self.checkField(secret, "token secret", code: .invalidCredential)
        try Self.checkField(rawNonce, "raw nonce", code: .missingOrInvalidNonce)
        guard idToken != nil || accessToken != nil || providerAnswer != nil else {
            throw AuthError(
                .invalidCredential,
                "The \(provider) credential has neither an ID token nor an access token; pass what the provider's sign-in gave.")
        }
    }

    /// The `postBody` of `accounts:signInWithIdp`: `providerId=…&id_token=…&access_token=…`, form-encoded.
    var postBody: String {
        var fields = [("providerId", provider)]
        if let idToken { fields.append(("id_token", idToken)) }
        if let accessToken { fields.append(("access_token", accessToken)) }
        if let secret { fields.append(("oauth_token_secret", secret)) }
        if let rawNonce { fields.append(("nonce", rawNonce)) }
        return fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")
    }

    /// A value of `application/x-www-form-urlencoded`: everything but unreserved characters percent-encoded.
    static func formEncoded(_ value: String) -> String {
        var unreserved = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
        unreserved.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
