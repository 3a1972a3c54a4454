import Foundation

// The apps' account operations: `accounts:signUp`, `signInWithPassword`, `lookup`, `update` and `delete`.
extension EmulatorService {
    /// An app's `accounts:signUp`: an anonymous account, an email and password account, or (with `idToken`) an
    /// email and password given to the account signed in. `tenantSettings` is the tenant the body names.
    func signUp(_ fields: RequestFields, tenantSettings: EmulatorTenant?) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        if fields.has("localId") { throw EmulatorFailure("UNEXPECTED_PARAMETER : User ID") }
        let email = try fields.string("email")
        let password = try fields.string("password")
        let displayName = try fields.string("displayName")
        let tenant = try fields.string("tenantId")
        let idToken = try fields.string("idToken")
        // SMS factors given to the new account, which firebase-tools takes from an app too.
        let factors = try SecondFactor.requested(try fields.objects("mfaInfo"), generatingIDs: true, now: clock())
        // An email and password, or neither (an anonymous sign-up).
        var credentials: (email: String, password: String)?
        if idToken != nil || email != nil || password != nil {
            guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
            guard let password else { throw EmulatorFailure("MISSING_PASSWORD") }
            credentials = (email, password)
            try tenantSettings?.require(\.allowPasswordSignup, "OPERATION_NOT_ALLOWED")
        } else {
            try tenantSettings?.require(\.enableAnonymousUser, "ADMIN_ONLY_OPERATION")
        }
        if let idToken {
            return try linkPassword(idToken: idToken, email: email, password: password, displayName: displayName, tenant: tenant)
        }
        return try state.withLock { state throws(EmulatorFailure) in
            guard state.accounts.count < maximumAccounts else {
                throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
            }
            let now = clock()
            var account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: tenant)
            if case let (email, password)? = credentials {
                let normalized = try Self.validEmail(email)
                guard state.uidsByEmail[Self.emailKey(normalized, tenant)] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
                try Self.checkStrength(password)
                account.email = normalized
                account.password = password
                account.displayName = displayName
                state.uidsByEmail[Self.emailKey(normalized, tenant)] = account.localId
            } else {
                guard state.settings.allowsAnonymousSignUp else {
                    throw EmulatorFailure("OPERATION_NOT_ALLOWED : Anonymous user sign-in is disabled for this project.")
                }
            }
            account.lastLoginAt = now.milliseconds
            account.secondFactors = factors
            state.accounts[account.localId] = account
            var reply = issueTokens(for: account, provider: account.isAnonymous ? "anonymous" : "password", now: now, in: &state).signInFields
            reply["kind"] = "identitytoolkit#SignupNewUserResponse"
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            return reply
        }
    }

    func signIn(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        _ = try fields.bool("returnSecureToken")
        guard let email = try fields.string("email") else { throw EmulatorFailure("MISSING_EMAIL") }
        let normalized = try Self.validEmail(email)
        guard let password = try fields.string("password"), !password.isEmpty else { throw EmulatorFailure("MISSING_PASSWORD") }
        let tenant = try fields.string("tenantId")
        return try state.withLock { state throws(EmulatorFailure) in
            let privacy = state.settings.emailEnumerationProtection
            guard let uid = state.uidsByEmail[Self.emailKey(normalized, tenant)], let account = state.accounts[uid] else {
                throw EmulatorFailure(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
            }
            guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            guard account.password == password else {
                throw EmulatorFailure(privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
            }
            var reply = firstFactorFields(for: account, provider: "password", now: clock(), in: &state)
            reply["kind"] = "identitytoolkit#VerifyPasswordResponse"
            reply["registered"] = true
            reply["email"] = account.email
            reply["displayName"] = account.displayName ?? ""
            return reply
        }
    }

    func lookUp(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            let account = try verify(token, in: state)
            return ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [account.lookupFields]]
        }
    }

    func update(_ fields: RequestFields, host: String?) throws(EmulatorFailure) -> [String: Any] {
        if let oobCode = try fields.string("oobCode") { return try applyOutOfBandCode(oobCode, tenant: try fields.string("tenantId")) }
        _ = try fields.bool("returnSecureToken")
        let token = try fields.string("idToken")
        let email = try fields.string("email")
        let password = try fields.string("password")
        let displayName = try fields.string("displayName")
        let photoUrl = try fields.string("photoUrl")
        let deleted = try fields.strings("deleteAttribute")
        if let unknown = deleted.first(where: { !["DISPLAY_NAME", "PHOTO_URL"].contains($0) }) {
            throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'delete_attribute' (\(unknown))")
        }
        let deletedProviders = try fields.strings("deleteProvider")
        let link = try fields.object("linkProviderUserInfo").map { (info) throws(EmulatorFailure) in try Self.identity(linking: info) }
        // Any value: as firebase-tools takes it from an app, `validSince` ends the sessions begun before now.
        let endsSessions = try fields.integer("validSince") != nil
        if let password { try Self.checkStrength(password) }
        let tenant = try fields.string("tenantId")
        var recovery: AuthEmulator.OutOfBandCode?
        defer { if let recovery { oobCodeHandler?(recovery) } }
        return try state.withLock { state throws(EmulatorFailure) in
            let verified = try verifySession(token, in: state)
            var account = verified.account
            // A new password makes the session a password one, as firebase-tools issues it (an anonymous user's too).
            let provider = password != nil ? "password" : verified.provider
            guard tenant == nil || tenant == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            if let link, let owner = state.uidsByIdentity[Self.identityKey(link.providerId, link.rawId, account.tenantId)],
                owner != account.localId
            {
                throw EmulatorFailure("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            let now = clock()
            var revokes = endsSessions
            let previousEmail = account.email
            let emailChanged = try email.map { (email) throws(EmulatorFailure) in
                try Self.changeEmail(of: &account, to: try Self.validEmail(email), in: &state)
            } ?? false
            if emailChanged {
                revokes = true
                // Not an anonymous session's first address: the change can be undone by the first address's owner.
                if verified.provider != "anonymous" {
                    if account.initialEmail == nil { account.initialEmail = previousEmail }
                    recovery = makeRecoveryCode(for: account, host: host, in: &state)
                }
            }
            if let password {
                account.password = password
                account.importedPasswordHash = nil
                revokes = true
            }
            if let displayName { account.displayName = displayName }
            if let photoUrl { account.photoUrl = photoUrl }
            if deleted.contains("DISPLAY_NAME") { account.displayName = nil }
            if deleted.contains("PHOTO_URL") { account.photoUrl = nil }
            for provider in deletedProviders { Self.removeProvider(provider, from: &account, in: &state) }
            if let link { Self.link(link, to: &account, in: &state) }
            if revokes {
                account.validSince = now.seconds
                account.tokenGeneration += 1
            }
            state.accounts[account.localId] = account
            var reply: [String: Any] = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.localId,
                "emailVerified": account.emailVerified, "providerUserInfo": account.providerUserInfoFields,
            ]
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            reply["photoUrl"] = account.photoUrl
            if revokes {
                reply.merge(issueTokens(for: account, provider: provider, now: now, in: &state).signInFields) { _, new in new }
            }
            return reply
        }
    }

    func delete(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let token = try fields.string("idToken")
        return try state.withLock { state throws(EmulatorFailure) in
            let account = try verify(token, in: state)
            Self.remove(account, from: &state)
            return ["kind": "identitytoolkit#DeleteAccountResponse"]
        }
    }
}
