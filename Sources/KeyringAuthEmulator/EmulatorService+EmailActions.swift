import Foundation

/// An email action code the emulator holds until it is used or expires.
struct OutOfBandRecord: Sendable {
    var code: AuthEmulator.OutOfBandCode
    var kind: String { code.requestType }
    /// The account it is for; `nil` for a sign-in link to an address of no account.
    var uid: String?
    var tenantID: String?
    /// Seconds since 1970.
    var expiresAt: Int64
}

// accounts:sendOobCode, accounts:resetPassword, accounts:update with an oobCode and accounts:signInWithEmailLink,
// as Firebase's Auth emulator serves them: codes are listed, never mailed.
extension EmulatorService {
    static let maximumOutOfBandCodes = 1000
    private static let requestTypes = ["PASSWORD_RESET": "resetPassword", "VERIFY_EMAIL": "verifyEmail",
        "EMAIL_SIGNIN": "signIn", "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail", "RECOVER_EMAIL": "recoverEmail"]
    /// `requestType`'s numbers in Identity Toolkit's `OobReqType`.
    private static let requestTypeNumbers: [Int64: String] = [
        0: "OOB_REQ_TYPE_UNSPECIFIED", 1: "PASSWORD_RESET", 2: "OLD_EMAIL_AGREE", 3: "NEW_EMAIL_ACCEPT", 4: "VERIFY_EMAIL",
        5: "RECOVER_EMAIL", 6: "EMAIL_SIGNIN", 7: "VERIFY_AND_CHANGE_EMAIL", 8: "REVERT_SECOND_FACTOR_ADDITION",
    ]

    var outOfBandCodes: [AuthEmulator.OutOfBandCode] { state.withLock { $0.oobCodes.map(\.code) } }

    func expireOutOfBandCodes() {
        state.withLock { state in
            for index in state.oobCodes.indices { state.oobCodes[index].expiresAt = 0 }
        }
    }

    /// `accounts:sendOobCode`. An administrator (`caller`) may ask for the link in the reply (`returnOobLink`, what the
    /// Admin SDKs' `generate…Link` calls send) and name the account of a verification by its address instead of
    /// an ID token.
    func sendOutOfBandCode(
        _ fields: RequestFields, _ request: EmulatorRequest, caller: EmulatorCaller = .app, tenant pathTenant: String? = nil,
        tenantSettings: EmulatorTenant? = nil
    ) throws(EmulatorFailure) -> [String: Any] {
        guard let requestType = try fields.enumeration("requestType", Self.requestTypeNumbers) else {
            throw EmulatorFailure("MISSING_REQ_TYPE")
        }
        guard let mode = Self.requestTypes[requestType], requestType != "RECOVER_EMAIL" else {
            throw EmulatorFailure("INVALID_REQ_TYPE : \(requestType.prefix(64))")
        }
        if requestType == "EMAIL_SIGNIN" { try tenantSettings?.require(\.enableEmailLinkSignin, "OPERATION_NOT_ALLOWED") }
        let returnsLink = try fields.bool("returnOobLink") ?? false
        guard !returnsLink || caller == .admin else { throw EmulatorFailure("INSUFFICIENT_PERMISSION") }
        let continueURL = try fields.string("continueUrl")
        if let continueURL {
            guard Self.isAbsoluteURI(continueURL) else {
                throw EmulatorFailure("INVALID_CONTINUE_URI")
            }
        }
        _ = try fields.bool("canHandleCodeInApp")
        _ = try fields.bool("androidInstallApp")
        for name in ["linkDomain", "dynamicLinkDomain", "iOSBundleId", "androidPackageName", "androidMinimumVersion"] {
            _ = try fields.string(name)
        }
        let email = try fields.string("email")
        let idToken = try fields.string("idToken")
        let newEmail = try fields.string("newEmail")
        let tenant: String? = if let pathTenant { pathTenant } else { try fields.string("tenantId") }
        let made: AuthEmulator.OutOfBandCode? = try state.withLock { state throws(EmulatorFailure) in
            let now = clock().seconds
            var record = OutOfBandRecord(
                code: AuthEmulator.OutOfBandCode(email: "", requestType: requestType, oobCode: EmulatorAccount.randomID(length: 40), oobLink: ""),
                tenantID: tenant, expiresAt: now + oobCodeLifetime)
            switch requestType {
            case "PASSWORD_RESET", "EMAIL_SIGNIN":
                guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
                let normalized = try Self.validEmail(email)
                record.code.email = normalized
                let uid = state.uidsByEmail[Self.emailKey(normalized, tenant)]
                record.uid = uid
                if requestType != "EMAIL_SIGNIN" {
                    guard let uid, let account = state.accounts[uid] else {
                        // With email enumeration protection, an unknown address is not told apart: nothing is made
                        // (also for an administrator's link, as in firebase-tools).
                        if state.settings.emailEnumerationProtection { return nil }
                        throw EmulatorFailure("EMAIL_NOT_FOUND")
                    }
                    guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
                }
            default:
                // As firebase-tools checks: the new address first, and a verification without an ID token is an invalid one.
                if requestType == "VERIFY_AND_CHANGE_EMAIL" && newEmail == nil { throw EmulatorFailure("MISSING_NEW_EMAIL") }
                let account: EmulatorAccount
                if caller == .admin && returnsLink && idToken == nil {
                    guard let email else { throw EmulatorFailure("MISSING_EMAIL") }
                    guard let uid = state.uidsByEmail[Self.emailKey(email.lowercased(), tenant)], let found = state.accounts[uid] else {
                        throw EmulatorFailure("USER_NOT_FOUND")
                    }
                    account = found
                } else {
                    if requestType == "VERIFY_EMAIL" && (idToken ?? "").isEmpty { throw EmulatorFailure("INVALID_ID_TOKEN") }
                    account = try verify(idToken, in: state)
                }
                guard tenant == nil || tenant == account.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
                record.uid = account.localId
                record.tenantID = account.tenantId
                guard let current = account.email else { throw EmulatorFailure("MISSING_EMAIL") }
                record.code.email = current
                if requestType == "VERIFY_AND_CHANGE_EMAIL" {
                    guard let newEmail else { throw EmulatorFailure("MISSING_NEW_EMAIL") }
                    let normalized = try Self.validEmail(newEmail)
                    if let owner = state.uidsByEmail[Self.emailKey(normalized, account.tenantId)], owner != account.localId {
                        throw EmulatorFailure("EMAIL_EXISTS")
                    }
                    record.code.newEmail = normalized
                }
            }
            Self.keep(
                &record, mode: mode, host: request.headers["host"], apiKey: request.apiKey, continueURL: continueURL,
                language: request.headers["x-firebase-locale"], in: &state)
            return record.code
        }
        if let made { oobCodeHandler?(made) }
        var reply: [String: Any] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse"]
        reply["email"] = made?.email ?? email
        if returnsLink, let made {
            reply["oobCode"] = made.oobCode
            reply["oobLink"] = made.oobLink
        }
        return reply
    }

    /// Gives `record` its link and keeps it, the oldest going past ``maximumOutOfBandCodes``.
    private static func keep(
        _ record: inout OutOfBandRecord, mode: String, host: String?, apiKey: String?, continueURL: String?, language: String? = nil,
        in state: inout State
    ) {
        record.code.oobLink = link(
            host: host, mode: mode, code: record.code.oobCode, apiKey: apiKey, continueURL: continueURL, tenant: record.tenantID,
            language: language)
        state.oobCodes.append(record)
        if state.oobCodes.count > maximumOutOfBandCodes { state.oobCodes.removeFirst() }
    }

    /// After `account`'s address was changed without a code: a `RECOVER_EMAIL` code that gives back its first
    /// address (`initialEmail`), as firebase-tools makes one (it would be mailed to that address). The caller
    /// hands it to ``oobCodeHandler`` once the state is unlocked.
    func makeRecoveryCode(for account: EmulatorAccount, host: String?, in state: inout State) -> AuthEmulator.OutOfBandCode? {
        guard let initial = account.initialEmail else { return nil }
        var record = OutOfBandRecord(
            code: AuthEmulator.OutOfBandCode(email: initial, requestType: "RECOVER_EMAIL", oobCode: EmulatorAccount.randomID(length: 40), oobLink: ""),
            uid: account.localId, tenantID: account.tenantId, expiresAt: clock().seconds + oobCodeLifetime)
        Self.keep(&record, mode: "recoverEmail", host: host, apiKey: nil, continueURL: nil, in: &state)
        return record.code
    }

    func resetPassword(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        guard let oobCode = try fields.string("oobCode"), !oobCode.isEmpty else { throw EmulatorFailure("MISSING_OOB_CODE") }
        let newPassword = try fields.string("newPassword")
        let tenant = try fields.string("tenantId")
        return try state.withLock { state throws(EmulatorFailure) in
            let (index, record) = try Self.usableCode(oobCode, tenant: tenant, in: &state, now: clock().seconds)
            var reply: [String: Any] = ["kind": "identitytoolkit#ResetPasswordResponse", "requestType": record.kind]
            guard let newPassword else {
                // A sign-in link's address is not told (the app asks the user for it), as in firebase-tools.
                if record.kind != "EMAIL_SIGNIN" { reply["email"] = record.code.email }
                reply["newEmail"] = record.code.newEmail
                return reply
            }
            guard record.kind == "PASSWORD_RESET" else { throw EmulatorFailure("INVALID_OOB_CODE") }
            var account = try Self.account(of: record, in: state)
            try Self.checkStrength(newPassword)
            account.password = newPassword
            account.validSince = clock().seconds
            account.tokenGeneration += 1
            state.accounts[account.localId] = account
            state.oobCodes.remove(at: index)
            reply["email"] = record.code.email
            return reply
        }
    }

    func applyOutOfBandCode(_ oobCode: String, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        guard !oobCode.isEmpty else { throw EmulatorFailure("MISSING_OOB_CODE") }
        return try state.withLock { state throws(EmulatorFailure) in
            let now = clock().seconds
            let (index, record) = try Self.usableCode(oobCode, tenant: tenant, in: &state, now: now)
            // An address change or recovery uses its code up even when it is refused, as in firebase-tools.
            let changesAddress = ["VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL"].contains(record.kind)
            if changesAddress { state.oobCodes.remove(at: index) }
            var account = try Self.account(of: record, in: state)
            switch record.kind {
            case "VERIFY_EMAIL":
                account.emailVerified = true
                state.oobCodes.remove(at: index)
            case "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL":
                guard let address = record.kind == "RECOVER_EMAIL" ? record.code.email : record.code.newEmail else {
                    throw EmulatorFailure("INVALID_OOB_CODE")
                }
                let key = Self.emailKey(address, account.tenantId)
                if let owner = state.uidsByEmail[key], owner != account.localId { throw EmulatorFailure("EMAIL_EXISTS") }
                if let old = account.email { state.uidsByEmail[Self.emailKey(old, account.tenantId)] = nil }
                state.uidsByEmail[key] = account.localId
                account.email = address
                account.emailVerified = true
                // An address change ends the account's sessions, as Firebase's does.
                account.validSince = now
                account.tokenGeneration += 1
            default:
                throw EmulatorFailure("INVALID_OOB_CODE")
            }
            state.accounts[account.localId] = account
            var reply: [String: Any] = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.localId, "emailVerified": account.emailVerified,
                "providerUserInfo": account.providerUserInfoFields,
            ]
            reply["email"] = account.email
            if record.kind == "VERIFY_AND_CHANGE_EMAIL" { reply["newEmail"] = account.email }
            return reply
        }
    }

    func signInWithEmailLink(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        guard let email = try fields.string("email") else { throw EmulatorFailure("MISSING_EMAIL") }
        let normalized = try Self.validEmail(email)
        guard let oobCode = try fields.string("oobCode"), !oobCode.isEmpty else { throw EmulatorFailure("MISSING_OOB_CODE") }
        let idToken = try fields.string("idToken")
        let tenant = try fields.string("tenantId")
        _ = try fields.bool("returnSecureToken")
        return try state.withLock { state throws(EmulatorFailure) in
            let now = clock()
            let (index, record) = try Self.usableCode(oobCode, tenant: tenant, in: &state, now: now.seconds)
            guard record.kind == "EMAIL_SIGNIN" else { throw EmulatorFailure("INVALID_OOB_CODE") }
            guard record.code.email == normalized else {
                throw EmulatorFailure("INVALID_EMAIL : The email provided does not match the sign-in email address.")
            }
            let key = Self.emailKey(normalized, tenant)
            var account: EmulatorAccount
            var isNewUser = false
            if let idToken {
                account = try verify(idToken, in: state)
                if let owner = state.uidsByEmail[key], owner != account.localId { throw EmulatorFailure("EMAIL_EXISTS") }
                if let old = account.email { state.uidsByEmail[Self.emailKey(old, account.tenantId)] = nil }
            } else if let uid = state.uidsByEmail[key], let existing = state.accounts[uid] {
                account = existing
                guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
            } else {
                guard state.accounts.count < maximumAccounts else {
                    throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
                }
                account = EmulatorAccount(localId: EmulatorAccount.randomID(), createdAt: now.milliseconds, tenantId: tenant)
                isNewUser = true
            }
            account.email = normalized
            account.emailVerified = true
            account.emailLinkSignIn = true
            // A sign-in's login time is set once no second factor is asked for (firstFactorFields).
            if idToken != nil { account.lastLoginAt = now.milliseconds }
            state.uidsByEmail[Self.emailKey(normalized, account.tenantId)] = account.localId
            state.accounts[account.localId] = account
            state.oobCodes.remove(at: index)
            // Linking an address to a signed-in user passes no first factor: no second is asked for.
            var reply = idToken == nil
                ? firstFactorFields(for: account, provider: "password", now: now, in: &state)
                : issueTokens(for: account, provider: "password", now: now, in: &state).signInFields
            reply["kind"] = "identitytoolkit#EmailLinkSigninResponse"
            reply["email"] = normalized
            reply["isNewUser"] = isNewUser
            return reply
        }
    }

    /// The page an action link opens in a browser, as Firebase's emulator's widget does it in plain text: a
    /// verification is applied; a password reset and a sign-in link say how to finish them with the link.
    func actionPage(_ query: [String: String]) -> EmulatorResponse {
        guard let code = query["oobCode"], !code.isEmpty else {
            return .text("This is no email action link: it has no oobCode.\n", status: 400)
        }
        let record = state.withLock { $0.oobCodes.first { $0.code.oobCode == code } }
        guard let record else {
            return .text("This link's code is not valid: it was used already, or the emulator was restarted. Ask for a new email.\n", status: 400)
        }
        let email = record.code.email
        switch record.kind {
        case "VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL":
            do throws(EmulatorFailure) {
                _ = try applyOutOfBandCode(code, tenant: record.tenantID)
            } catch {
                return .text("The code could not be applied: \(error.code).\n", status: 400)
            }
            let done = switch record.kind {
            case "VERIFY_EMAIL": "Your email address \(email) is verified."
            case "RECOVER_EMAIL": "Your email address is \(email) again."
            default: "Your email address is now \(record.code.newEmail ?? email), verified."
            }
            return .text(done + (query["continueUrl"].map { "\nContinue at \($0)\n" } ?? "\n"))
        case "PASSWORD_RESET":
            return .text("""
                To reset the password of \(email), give the app this link and the new password, for example:
                  printf '%s\\n%s\\n' "$LINK" "$NEW_PASSWORD" | keyring-auth reset-password --code-stdin --password-stdin …

                """)
        default:
            return .text("""
                To sign in as \(email), give the app this link, for example:
                  printf '%s\\n' "$LINK" | keyring-auth sign-in --email \(email) --link-stdin …

                """)
        }
    }

    /// The code's record and its place, if it can still be used; an expired code is removed.
    private static func usableCode(
        _ oobCode: String, tenant: String?, in state: inout State, now: Int64
    ) throws(EmulatorFailure) -> (Int, OutOfBandRecord) {
        guard let index = state.oobCodes.firstIndex(where: { $0.code.oobCode == oobCode }) else {
            throw EmulatorFailure("INVALID_OOB_CODE")
        }
        let record = state.oobCodes[index]
        guard record.expiresAt > now else {
            state.oobCodes.remove(at: index)
            throw EmulatorFailure("EXPIRED_OOB_CODE")
        }
        guard tenant == nil || tenant == record.tenantID else { throw EmulatorFailure("INVALID_OOB_CODE") }
        return (index, record)
    }

    /// The account a code is for, if it still exists, is enabled and has the address (a recovery's: the one it
    /// first had).
    private static func account(of record: OutOfBandRecord, in state: State) throws(EmulatorFailure) -> EmulatorAccount {
        guard let uid = record.uid, let account = state.accounts[uid] else { throw EmulatorFailure("USER_NOT_FOUND") }
        guard !account.disabled else { throw EmulatorFailure("USER_DISABLED") }
        let current = record.kind == "RECOVER_EMAIL" ? account.initialEmail : account.email
        guard current == record.code.email else {
            throw EmulatorFailure("INVALID_OOB_CODE")
        }
        return account
    }

    /// The action link, as Firebase's emulator makes it: `http://<host>/emulator/action?mode=…&lang=en&oobCode=…&apiKey=…`,
    /// the continue URL and a tenant's ID. `host` is the request's `Host` header when it is a plain host and port.
    /// `lang` is the request's `X-Firebase-Locale` (`language`: letters, digits, `-` and `_`, at most 35), as Firebase's
    /// links carry the language of their email, or `en` without one (firebase-tools' emulator always writes `en`).
    static func link(
        host: String?, mode: String, code: String, apiKey: String?, continueURL: String?, tenant: String? = nil, language: String? = nil
    ) -> String {
        let tag = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        let lang = language.flatMap { $0.isEmpty || $0.count > 35 || !$0.unicodeScalars.allSatisfy(tag.contains) ? nil : $0 } ?? "en"
        var query = [("mode", mode), ("lang", lang), ("oobCode", code), ("apiKey", apiKey ?? "fake-api-key")]
        if let continueURL { query.append(("continueUrl", continueURL)) }
        if let tenant { query.append(("tenantId", tenant)) }
        return "http://\(pageHost(host))/emulator/action?\(queryString(query))"
    }
}
