import Foundation

// The secure-token endpoint's refresh, and the tokens issued and verified for a session.
extension EmulatorService {
    /// The project number the emulator gives where production gives the project's: firebase-tools' made-up one.
    static let projectNumber = "12345"

    func refresh(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        // The real service takes snake case; Firebase's Apple SDK sends camel case.
        let grant: String? = if let snake = try fields.string("grant_type") { snake } else { try fields.string("grantType") }
        guard let grant else {
            throw EmulatorFailure("MISSING_GRANT_TYPE")
        }
        guard grant == "refresh_token" else { throw EmulatorFailure("INVALID_GRANT_TYPE") }
        let token: String? = if let snake = try fields.string("refresh_token") { snake } else { try fields.string("refreshToken") }
        guard let token, !token.isEmpty else {
            throw EmulatorFailure("MISSING_REFRESH_TOKEN")
        }
        return try state.withLock { state throws(EmulatorFailure) in
            guard let parsed = RefreshToken(token), parsed.projectID == projectID else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard let account = state.accounts[parsed.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
            guard parsed.tenantID == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            guard parsed.secret == account.refreshSecret else { throw EmulatorFailure("INVALID_REFRESH_TOKEN") }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard parsed.generation == account.tokenGeneration else { throw EmulatorFailure("TOKEN_EXPIRED") }
            let issued = issueTokens(
                for: account, provider: parsed.provider, extraClaims: parsed.claims, secondFactor: parsed.secondFactor, now: clock(), in: &state)
            return [
                "id_token": issued.idToken, "access_token": issued.idToken, "refresh_token": issued.refreshToken,
                "expires_in": issued.expiresIn, "token_type": "Bearer", "user_id": account.localId,
                // Production's project number here; firebase-tools' emulator answers with this made-up one.
                "project_id": Self.projectNumber,
            ]
        }
    }


    /// Tokens just issued for an account.
    struct IssuedTokens {
        var uid: String
        var idToken: String
        var refreshToken: String
        /// Seconds, as a string like the real service's.
        var expiresIn: String

        /// The fields sign-up, sign-in and a credential change answer with.
        var signInFields: [String: Any] {
            ["localId": uid, "idToken": idToken, "refreshToken": refreshToken, "expiresIn": expiresIn]
        }
    }

    /// Tokens for a session of `account` signed in by `provider`; `extraClaims` (a JSON object as text, from a
    /// custom token) go in every ID token of the session, after the account's own custom claims;
    /// `signInAttributes` (a SAML assertion's, as JSON text) in the first ID token only, as in firebase-tools. The
    /// caller has stored `account` already.
    func issueTokens(
        for account: EmulatorAccount, provider: String, extraClaims: String? = nil, signInAttributes: String? = nil,
        secondFactor: RefreshToken.SecondFactorUse? = nil, now: Date, in state: inout State
    ) -> IssuedTokens {
        // When the account's tokens were last issued: `lastRefreshAt`, as firebase-tools records it.
        state.accounts[account.localId]?.lastRefreshAt = now.milliseconds
        let issuedAt = now.seconds
        let idToken = UnsignedIDToken(
            projectID: projectID, uid: account.localId, issuedAt: issuedAt, expiresAt: issuedAt + tokenLifetime,
            authTime: (account.lastLoginAt ?? now.milliseconds) / 1000, signInProvider: provider, email: account.email,
            emailVerified: account.emailVerified, tenantID: account.tenantId, identities: account.identityClaims,
            customClaims: [account.customAttributes, extraClaims].compactMap { $0 }, name: account.displayName,
            picture: account.photoUrl, phoneNumber: account.phoneNumber, signInAttributes: signInAttributes, secondFactor: secondFactor)
        let refreshToken = RefreshToken(
            uid: account.localId, generation: account.tokenGeneration, secret: account.refreshSecret, provider: provider,
            claims: extraClaims, projectID: projectID, tenantID: account.tenantId, secondFactor: secondFactor)
        return IssuedTokens(
            uid: account.localId, idToken: idToken.encoded, refreshToken: refreshToken.encoded, expiresIn: String(tokenLifetime))
    }

    /// The account an ID token belongs to, if the token is still good.
    func verify(_ token: String?, in state: State) throws(EmulatorFailure) -> EmulatorAccount {
        try verifySession(token, in: state).account
    }

    /// The account an ID token belongs to and the sign-in method of its session.
    func verifySession(_ token: String?, in state: State) throws(EmulatorFailure) -> (account: EmulatorAccount, provider: String) {
        guard let token, !token.isEmpty else { throw EmulatorFailure("MISSING_ID_TOKEN") }
        guard let claims = UnsignedIDToken(decoding: token, projectID: projectID) else { throw EmulatorFailure("INVALID_ID_TOKEN") }
        guard let account = state.accounts[claims.uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
        guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
        guard claims.issuedAt >= account.validSince, claims.expiresAt > clock().seconds else { throw EmulatorFailure("TOKEN_EXPIRED") }
        return (account, claims.signInProvider)
    }
}
