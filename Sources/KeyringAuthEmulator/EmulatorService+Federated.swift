import Foundation

// Signing in with an identity provider's tokens, with a custom token, and linking an email and password,
// as Firebase's Auth emulator does them: no token is verified; an identity provider's ID token (an unsigned
// or any JWT, or plain JSON) names the user by its `sub` and `email`, a custom token by its `uid`.
extension EmulatorService {
    /// The `aud` of a custom token, as the Admin SDK mints it.
    static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// Provider IDs that are not identity providers.
    static let reservedProviders: Set<String> = ["password", "phone", "anonymous", "custom", "firebase", "emaillink"]

    /// What the fake identity provider says about the user.
    struct IdentityProviderUser {
        var providerId: String
        var rawId: String
        var email: String?
        var emailVerified: Bool
        var displayName: String?
        var photoUrl: String?
        var screenName: String?
        /// The address as the provider gave it, where the reply keeps its case (a SAML assertion's subject).
        var emailAsGiven: String?
        /// The ID the reply names the user by: the provider's, as Google prefixes it for `google.com`.
        var federatedId: String
        var firstName: String?
        var lastName: String?
        /// What the provider said, as JSON text: the claims, Google's user-info shape, or a SAML assertion's
        /// attribute statements (none when it has none).
        var rawUserInfo: String?
        /// A SAML assertion's attribute statements, JSON text, for the ID token's `firebase.sign_in_attributes`.
        var signInAttributes: String?
        var idToken: String?
        var accessToken: String?

        var identity: EmulatorAccount.ProviderIdentity {
            var identity = EmulatorAccount.ProviderIdentity(
                providerId: providerId, rawId: rawId, email: email, displayName: displayName, photoUrl: photoUrl, screenName: screenName)
            // As firebase-tools records it: the raw ID, not the reply's prefixed one.
            identity.federatedId = rawId
            return identity
        }
    }

    // MARK: signInWithIdp

    func signInWithIdp(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        let returnIdpCredential = try fields.bool("returnIdpCredential") ?? false
        let autoCreate = try fields.bool("autoCreate") ?? true
        let tenant = try fields.string("tenantId")
        let linkingToken = try fields.string("idToken")
        guard let requestUri = try fields.string("requestUri"), !requestUri.isEmpty else { throw EmulatorFailure("MISSING_REQUEST_URI") }
        guard URL(string: requestUri)?.scheme != nil else { throw EmulatorFailure("INVALID_REQUEST_URI") }
        // The provider's parameters: those of requestUri's query, and of postBody over them, as firebase-tools reads them.
        let uriQuery = URLComponents(string: requestUri)?.percentEncodedQuery ?? ""
        let parameters = [try fields.string("postBody") ?? "", uriQuery].joined(separator: "&")
        // A provider's answer to a sign-in begun by createAuthUri names the user chosen on the emulator's page.
        let chosen = try finishIdpSignIn(requestUri: requestUri, parameters: parameters, sessionId: try fields.string("sessionId"), tenant: tenant)
        let idpUser = try Self.identityProviderUser(postBody: chosen ?? parameters)

        return try state.withLock { state throws(EmulatorFailure) -> [String: Any] in
            var reply: [String: Any] = [
                "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": idpUser.providerId,
                "federatedId": idpUser.federatedId, "emailVerified": idpUser.emailVerified,
                // Always an access token, as Firebase's emulator answers, for clients that expect one.
                "oauthAccessToken": idpUser.accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(idpUser.providerId)",
            ]
            reply["oauthIdToken"] = idpUser.idToken
            reply["rawUserInfo"] = idpUser.rawUserInfo
            reply["email"] = idpUser.emailAsGiven ?? idpUser.email
            reply["displayName"] = idpUser.displayName
            reply["fullName"] = idpUser.displayName
            reply["firstName"] = idpUser.firstName
            reply["lastName"] = idpUser.lastName
            reply["photoUrl"] = idpUser.photoUrl
            reply["screenName"] = idpUser.screenName
            let now = clock()
            let identityKey = Self.identityKey(idpUser.providerId, idpUser.rawId, tenant)
            let holder = state.uidsByIdentity[identityKey]
            // With duplicate addresses allowed, a provider's address neither finds nor goes to an account.
            let oneAccountPerEmail = !state.settings.allowsDuplicateEmails
            var account: EmulatorAccount
            var isNewUser = false
            do throws(EmulatorFailure) {
                if let linkingToken {
                    account = try verify(linkingToken, in: state)
                    guard tenant == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
                    guard holder == nil else { throw EmulatorFailure("FEDERATED_USER_ID_ALREADY_LINKED") }
                    if oneAccountPerEmail, let email = idpUser.email, let owner = state.uidsByEmail[Self.emailKey(email, tenant)],
                        owner != account.localId
                    {
                        throw EmulatorFailure("EMAIL_EXISTS")
                    }
                    Self.unindex(account, from: &state)
                    account.identities.removeAll { $0.providerId == idpUser.providerId }
                    account.identities.append(idpUser.identity)
                    if oneAccountPerEmail, account.email == nil, let email = idpUser.email {
                        account.email = email
                        account.emailVerified = idpUser.emailVerified
                    } else if account.email == idpUser.email, idpUser.emailVerified {
                        account.emailVerified = true
                    }
                } else if let holder, let existing = state.accounts[holder] {
                    account = existing
                    // What the provider says now (its address, name, picture) replaces what it said before.
                    if let index = account.identities.firstIndex(where: { $0.providerId == idpUser.providerId && $0.rawId == idpUser.rawId }) {
                        account.identities[index] = idpUser.identity
                    }
                } else if oneAccountPerEmail, let email = idpUser.email, let owner = state.uidsByEmail[Self.emailKey(email, tenant)],
                    let existing = state.accounts[owner]
                {
                    // One account per email address: a provider that vouches for the address joins the account;
                    // otherwise the app must sign in with the account's method and link (needConfirmation).
                    guard idpUser.emailVerified else {
                        reply["needConfirmation"] = true
                        reply["localId"] = existing.localId
                        reply["verifiedProvider"] = existing.identities.map(\.providerId)
                        return reply
                    }
                    account = existing
                    Self.unindex(account, from: &state)
                    if !account.emailVerified {
                        // Whoever set the unverified password may not own the address: it goes, as in Firebase.
                        account.password = nil
                        account.identities = []
                        account.validSince = now.seconds
                        account.tokenGeneration += 1
                    }
                    account.identities.append(idpUser.identity)
                    account.emailVerified = true
                    // The profile is the provider's now, old values discarded, as in firebase-tools.
                    account.displayName = idpUser.displayName
                    account.photoUrl = idpUser.photoUrl
                    account.screenName = idpUser.screenName
                } else {
                    guard autoCreate else { throw EmulatorFailure("USER_NOT_FOUND") }
                    guard state.accounts.count < maximumAccounts else {
                        throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
                    }
                    account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: tenant)
                    account.identities = [idpUser.identity]
                    if oneAccountPerEmail {
                        account.email = idpUser.email
                        account.emailVerified = idpUser.email != nil && idpUser.emailVerified
                    }
                    account.displayName = idpUser.displayName
                    account.photoUrl = idpUser.photoUrl
                    account.screenName = idpUser.screenName
                    isNewUser = true
                }
            } catch where returnIdpCredential && ["FEDERATED_USER_ID_ALREADY_LINKED", "EMAIL_EXISTS"].contains(error.code) {
                // Asked for the provider's credential back: a refusal about the credential comes in a 200 answer.
                reply["errorMessage"] = error.message
                return reply
            }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            // A sign-in's login time is set once no second factor is asked for (firstFactorFields).
            if linkingToken != nil { account.lastLoginAt = now.milliseconds }
            Self.store(account, in: &state)
            reply["localId"] = account.localId
            reply["tenantId"] = account.tenantId
            reply["isNewUser"] = isNewUser
            if account.email == idpUser.email { reply["emailVerified"] = account.emailVerified }
            let (provider, attributes) = (idpUser.providerId, idpUser.signInAttributes)
            let signedIn = linkingToken != nil
                ? issueTokens(for: account, provider: provider, signInAttributes: attributes, now: now, in: &state).signInFields
                : firstFactorFields(for: account, provider: provider, signInAttributes: attributes, now: now, in: &state)
            reply.merge(signedIn) { _, new in new }
            return reply
        }
    }

    /// The user the `postBody`'s tokens name, read as Firebase's emulator reads them: the ID token, else
    /// the access token, as plain JSON (`{"sub": …}`) or a JWT of any algorithm; `sub` required.
    static func identityProviderUser(postBody: String) throws(EmulatorFailure) -> IdentityProviderUser {
        let form = FormFields.parse(postBody).compactMapValues { $0.first }
        guard let providerId = form["providerId"]?.lowercased(), !providerId.isEmpty else {
            throw EmulatorFailure("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: no providerId in postBody")
        }
        guard !reservedProviders.contains(providerId), providerId.contains(".") else {
            throw EmulatorFailure("INVALID_PROVIDER_ID : Provider Id is not supported.")
        }
        let idToken = form["id_token"].flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = form["access_token"].flatMap { $0.isEmpty ? nil : $0 }
        let idTokenClaims = try claims(of: idToken)
        let accessTokenClaims = idTokenClaims == nil ? try claims(of: accessToken) : nil
        guard let claims = idTokenClaims ?? accessTokenClaims else {
            if idToken != nil {
                throw EmulatorFailure("INVALID_IDP_RESPONSE : Unable to parse id_token ((the emulator takes JSON or a JWT as a fake id_token))")
            }
            if accessToken != nil {
                throw EmulatorFailure(
                    "INVALID_IDP_RESPONSE : ((the emulator signs in with an access token only when it is JSON or a JWT naming the user))")
            }
            throw EmulatorFailure("INVALID_IDP_RESPONSE : ((the emulator signs in with credentials: an id_token is required))")
        }
        guard let sub = claims["sub"] as? String, !sub.isEmpty, sub.utf8.count <= 255 else {
            throw EmulatorFailure("INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((\"sub\" must be a string))")
        }
        let email = (claims["email"] as? String).flatMap { try? validEmail($0) }
        let emailVerified = claims["email_verified"] as? Bool ?? false
        var user = IdentityProviderUser(
            providerId: providerId, rawId: sub, email: email, emailVerified: emailVerified,
            displayName: claims["name"] as? String, photoUrl: claims["picture"] as? String,
            screenName: (claims["screen_name"] as? String) ?? (claims["login"] as? String), federatedId: sub,
            rawUserInfo: jsonText(claims), idToken: idToken, accessToken: accessToken)
        let saml = try samlAssertion(form["SAMLResponse"])
        if providerId == "google.com" {
            // As Google's user-info endpoint answers, and its federated IDs are written.
            user.federatedId = "https://accounts.google.com/\(sub)"
            user.firstName = claims["given_name"] as? String
            user.lastName = claims["family_name"] as? String
            var scopes = "openid https://www.googleapis.com/auth/userinfo.profile"
            if email != nil { scopes += " https://www.googleapis.com/auth/userinfo.email" }
            var info: [String: Any] = ["granted_scopes": scopes, "id": sub, "verified_email": emailVerified, "locale": "en"]
            info["name"] = user.displayName
            info["given_name"] = user.firstName
            info["family_name"] = user.lastName
            info["email"] = email
            info["picture"] = user.photoUrl
            user.rawUserInfo = jsonText(info)
        } else if providerId.hasPrefix("saml.") {
            // The assertion's subject is the address when it is one; a SAML provider vouches for it.
            if let nameId = saml?.nameId, let address = try? validEmail(nameId) {
                user.email = address
                user.emailAsGiven = nameId
            }
            user.emailVerified = true
            user.rawUserInfo = saml?.attributes.flatMap(jsonText)
        }
        user.signInAttributes = saml?.attributes.flatMap(jsonText)
        return user
    }

    /// A `SAMLResponse` as firebase-tools' emulator takes it: not SAML, but JSON with `assertion.subject.nameId`
    /// required and `assertion.attributeStatements` optional.
    private static func samlAssertion(_ text: String?) throws(EmulatorFailure) -> (nameId: String, attributes: Any?)? {
        guard let text, !text.isEmpty else { return nil }
        guard let response = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw EmulatorFailure("INVALID_IDP_RESPONSE ((the emulator takes a SAMLResponse as JSON))")
        }
        guard let assertion = response["assertion"] as? [String: Any] else {
            throw EmulatorFailure("INVALID_IDP_RESPONSE ((Missing assertion in SAMLResponse.))")
        }
        guard let subject = assertion["subject"] as? [String: Any] else {
            throw EmulatorFailure("INVALID_IDP_RESPONSE ((Missing assertion.subject in SAMLResponse.))")
        }
        guard let nameId = subject["nameId"] as? String, !nameId.isEmpty else {
            throw EmulatorFailure("INVALID_IDP_RESPONSE ((Missing assertion.subject.nameId in SAMLResponse.))")
        }
        return (nameId, assertion["attributeStatements"])
    }

    /// A JSON value as compact text with sorted keys; `nil` for what is not JSON.
    private static func jsonText(_ value: Any) -> String? {
        guard JSONSerialization.isValidJSONObject(value) else { return nil }
        return (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A fake token's claims: JSON when it starts with `{` (malformed JSON is refused), else a JWT's payload.
    private static func claims(of token: String?) throws(EmulatorFailure) -> [String: Any]? {
        guard let token else { return nil }
        if token.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any] else {
                throw EmulatorFailure("INVALID_IDP_RESPONSE : Unable to parse id_token ((the emulator failed to parse it as strict JSON))")
            }
            return object
        }
        return UnverifiedJWT.decode(token)?.payload
    }

    private static func unindex(_ account: EmulatorAccount, from state: inout State) {
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = nil }
        for identity in account.identities {
            state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = nil
        }
    }

    // MARK: signInWithCustomToken

    func signInWithCustomToken(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        guard let token = try fields.string("token"), !token.isEmpty else { throw EmulatorFailure("MISSING_CUSTOM_TOKEN") }
        let tenant = try fields.string("tenantId")
        let payload: [String: Any]
        if token.hasPrefix("{") {
            // The emulator only: plain JSON as a custom token, with no audience to check (as Firebase's emulator).
            guard let object = try? JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any] else {
                throw EmulatorFailure("INVALID_CUSTOM_TOKEN : ((the emulator takes strict JSON or a JWT as a fake custom token))")
            }
            payload = object
        } else {
            guard let decoded = UnverifiedJWT.decode(token) else { throw EmulatorFailure("INVALID_CUSTOM_TOKEN : Invalid assertion format") }
            guard decoded.payload["aud"] as? String == Self.customTokenAudience else {
                throw EmulatorFailure(
                    "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience); Firebase ID tokens and other tokens cannot be used as custom tokens))")
            }
            payload = decoded.payload
        }
        let uid = Self.text(payload["uid"]) ?? Self.text(payload["user_id"])
        guard let uid, !uid.isEmpty else { throw EmulatorFailure("MISSING_IDENTIFIER") }
        guard uid.count <= 128 else { throw EmulatorFailure("INVALID_CUSTOM_TOKEN : ((the uid is longer than 128 characters))") }
        var claimsText: String?
        if let claims = payload["claims"] {
            guard let object = claims as? [String: Any] else { throw EmulatorFailure("INVALID_CLAIMS") }
            if let reserved = CustomClaims.forbiddenClaim(in: object) { throw EmulatorFailure("FORBIDDEN_CLAIM : \(reserved)") }
            if let problem = CustomClaims.problem(with: object) {
                throw EmulatorFailure(problem.contains("reserved") ? "FORBIDDEN_CLAIM : \(problem)" : "CLAIMS_TOO_LARGE : \(problem)")
            }
            claimsText = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        }
        guard Self.text(payload["tenant_id"]) == tenant else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
        return try state.withLock { state throws(EmulatorFailure) -> [String: Any] in
            let now = clock()
            var account: EmulatorAccount
            let isNewUser: Bool
            if let existing = state.accounts[uid] {
                guard !existing.disabled else { throw EmulatorFailure("USER_DISABLED") }
                guard existing.tenantId == tenant else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
                account = existing
                isNewUser = false
            } else {
                guard state.accounts.count < maximumAccounts else {
                    throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
                }
                account = EmulatorAccount(localId: uid, createdAt: now.milliseconds, tenantId: tenant)
                isNewUser = true
            }
            account.customAuth = true
            account.lastLoginAt = now.milliseconds
            Self.store(account, in: &state)
            let issued = issueTokens(for: account, provider: "custom", extraClaims: claimsText, now: now, in: &state)
            return [
                "kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": isNewUser, "idToken": issued.idToken,
                "refreshToken": issued.refreshToken, "expiresIn": issued.expiresIn,
            ]
        }
    }

    /// A string, or a number written as one (the Admin SDK's uids are strings; hand-made tokens may differ).
    private static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let number as NSNumber where !(number is Bool): number.stringValue
        default: nil
        }
    }

    // MARK: Linking an email and password

    /// `accounts:signUp` with `idToken`: gives that account an email and password.
    func linkPassword(
        idToken: String, email: String?, password: String?, displayName: String? = nil, tenant: String?
    ) throws(EmulatorFailure) -> [String: Any] {
        guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
        guard let password else { throw EmulatorFailure("MISSING_PASSWORD") }
        let normalized = try Self.validEmail(email)
        try Self.checkStrength(password)
        return try state.withLock { state throws(EmulatorFailure) -> [String: Any] in
            let verified = try verifySession(idToken, in: state)
            var account = verified.account
            guard tenant == nil || tenant == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            let key = Self.emailKey(normalized, account.tenantId)
            if let owner = state.uidsByEmail[key], owner != account.localId { throw EmulatorFailure("EMAIL_EXISTS") }
            // An email and password the account already has are replaced, as in firebase-tools.
            Self.unindex(account, from: &state)
            if account.email != normalized { account.emailVerified = false }
            account.email = normalized
            account.password = password
            if let displayName { account.displayName = displayName }
            Self.store(account, in: &state)
            var reply = issueTokens(for: account, provider: "password", now: clock(), in: &state).signInFields
            reply["kind"] = "identitytoolkit#SignupNewUserResponse"
            reply["email"] = normalized
            reply["displayName"] = account.displayName
            return reply
        }
    }
}
