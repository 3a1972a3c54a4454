import Foundation

extension SignInReply {
    func signIn(isNewUser: Bool) throws(AuthError) -> BackendSignIn {
        BackendSignIn(
            uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
            isNewUser: isNewUser)
    }
}

extension CustomTokenReply {
    /// The answer has no `localId`: the uid is the ID token's `user_id` (`sub`), as Firebase's SDKs read it.
    var signIn: BackendSignIn {
        get throws(AuthError) {
            let tokens = try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
            let uid = try BackendSignIn.claims(of: idToken, operation: "accounts:signInWithCustomToken").uid
            return BackendSignIn(uid: uid, tokens: tokens, isNewUser: isNewUser ?? false)
        }
    }
}

extension BackendSignIn {
    /// The ID token's user and expiry, for answers that give neither `localId` nor `expiresIn`.
    static func claims(of idToken: String, operation: String) throws(AuthError) -> (uid: String, expiry: Date) {
        let claims: IDTokenClaims
        do throws(AuthError) {
            claims = try IDTokenClaims(decoding: idToken)
        } catch {
            throw IdentityToolkitReply.malformed(operation, "its ID token cannot be decoded (\(error.message))")
        }
        guard let uid = claims.uid else { throw IdentityToolkitReply.malformed(operation, "its ID token names no user") }
        guard let expiry = try? claims.date("exp") else { throw IdentityToolkitReply.malformed(operation, "its ID token has no expiry") }
        return (uid, expiry)
    }

    /// A sign-in whose answer is only tokens (`mfaSignIn:finalize`).
    init(signedInWith idToken: String, refreshToken: String, operation: String) throws(AuthError) {
        let (uid, expiry) = try Self.claims(of: idToken, operation: operation)
        self.init(uid: uid, tokens: AuthTokens(idToken: idToken, refreshToken: refreshToken, expirationDate: expiry))
    }
}

extension IdpSignInReply {
    /// The sign-in, or the refusal the answer carries: Identity Toolkit answers some refusals with HTTP 200
    /// when asked to return the provider's credential (`errorMessage`, `needConfirmation`), as Firebase's SDKs read them.
    func signIn(requestedProvider: String) throws(AuthError) -> BackendSignIn {
        let answer = IdentityProviderAnswer(
            providerID: providerId ?? requestedProvider, rawUserInfo: rawUserInfo, username: screenName, idToken: oauthIdToken,
            accessToken: oauthAccessToken, tokenSecret: oauthTokenSecret)
        if let errorMessage {
            var error = ServerErrorCode(message: errorMessage).authError
            if [.credentialAlreadyInUse, .emailAlreadyInUse, .accountExistsWithDifferentCredential].contains(error.code) {
                error.updatedCredential = answer.credential
                error.email = email
            }
            throw error
        }
        if needConfirmation == true {
            throw AuthError(
                .accountExistsWithDifferentCredential,
                "An account already uses \(email ?? "this email address") with another sign-in method"
                    + "\(verifiedProvider.map { " (\($0.joined(separator: ", ")))" } ?? ""); sign in with that method, then link "
                    + "this credential with User.link(with:).",
                updatedCredential: answer.credential, email: email)
        }
        guard let localId, let idToken, let refreshToken, let expiresIn else {
            throw IdentityToolkitReply.malformed("accounts:signInWithIdp", "it has no localId or tokens")
        }
        return BackendSignIn(
            uid: localId, tokens: try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn),
            isNewUser: isNewUser ?? false, identityProvider: answer)
    }
}

extension UpdateReply {
    var tokens: AuthTokens? {
        get throws(AuthError) {
            guard let idToken, let refreshToken, let expiresIn else { return nil }
            return try AuthTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
        }
    }
}

extension SecureTokenReply {
    var tokens: AuthTokens {
        get throws(AuthError) {
            guard let token = idToken ?? accessToken else {
                throw IdentityToolkitReply.malformed("token", "no id_token or access_token")
            }
            return try AuthTokens(idToken: token, refreshToken: refreshToken, expiresIn: expiresIn)
        }
    }
}

extension AuthTokens {
    /// Tokens that expire `expiresIn` seconds from now.
    init(idToken: String, refreshToken: String, expiresIn: LenientInt) throws(AuthError) {
        guard !idToken.isEmpty, !refreshToken.isEmpty else {
            throw IdentityToolkitReply.malformed("sign-in", "an empty token")
        }
        guard (0...(366 * 24 * 3600)).contains(expiresIn.value) else {
            throw IdentityToolkitReply.malformed("sign-in", "expiresIn \(expiresIn.value) is out of range")
        }
        self.init(idToken: idToken, refreshToken: refreshToken, expirationDate: Date().addingTimeInterval(Double(expiresIn.value)))
    }
}
