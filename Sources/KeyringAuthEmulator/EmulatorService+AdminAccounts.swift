import Foundation

// The Admin API's account operations (`Authorization: Bearer owner`), with the request and reply fields and the
// error strings of Firebase's Auth emulator. Accounts are addressed by uid (`localId`), within a tenant or not;
// a uid of another tenant is no account here.
extension EmulatorService {
    /// The hash algorithms `accounts:batchCreate` takes (Identity Toolkit's list).
    static let hashAlgorithms: Set<String> = [
        "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5", "SCRYPT", "PBKDF_SHA1", "MD5", "HMAC_SHA512", "SHA1", "BCRYPT", "PBKDF2_SHA256",
        "SHA256", "SHA512", "STANDARD_SCRYPT", "ARGON2",
    ]
    /// The most identifiers one lookup takes, users one import or deletion takes.
    static let maximumBatch = 1000

    /// `POST projects/{p}/accounts` (the Admin SDKs' `createUser`): an account with the given fields, no tokens.
    func adminCreate(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        let uid = try fields.string("localId")
        if uid != nil, fields.has("idToken") { throw EmulatorFailure("UNEXPECTED_PARAMETER : User ID") }
        if let uid { try Self.checkUID(uid) }
        let email = try fields.string("email").flatMap { $0.isEmpty ? nil : $0 }
        let password = try fields.string("password").flatMap { $0.isEmpty ? nil : $0 }
        let phone = try fields.string("phoneNumber").flatMap { $0.isEmpty ? nil : $0 }
        let displayName = try fields.string("displayName")
        let photoUrl = try fields.string("photoUrl")
        let emailVerified = try fields.bool("emailVerified") ?? false
        let disabled = try fields.bool("disabled") ?? false
        let factors = try SecondFactor.requested(try fields.objects("mfaInfo"), generatingIDs: true, now: clock())
        if let password { try Self.checkStrength(password) }
        if let phone { try Self.checkPhone(phone) }
        let normalized = try email.map { (email) throws(EmulatorFailure) in try Self.validEmail(email) }
        return try state.withLock { state throws(EmulatorFailure) in
            guard state.accounts.count < maximumAccounts else {
                throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
            }
            if let uid, state.accounts[uid] != nil { throw EmulatorFailure("DUPLICATE_LOCAL_ID") }
            if let normalized, state.uidsByEmail[Self.emailKey(normalized, tenant)] != nil { throw EmulatorFailure("EMAIL_EXISTS") }
            if let phone, state.uidsByPhone[Self.phoneKey(phone, tenant)] != nil { throw EmulatorFailure("PHONE_NUMBER_EXISTS") }
            var account = EmulatorAccount(localId: uid ?? EmulatorAccount.randomID(), createdAt: clock().milliseconds, tenantId: tenant)
            account.email = normalized
            account.password = password
            account.phoneNumber = phone
            account.displayName = displayName
            account.photoUrl = photoUrl
            account.emailVerified = emailVerified
            account.disabled = disabled
            account.secondFactors = factors
            Self.store(account, in: &state)
            var reply: [String: Any] = ["kind": "identitytoolkit#SignupNewUserResponse", "localId": account.localId]
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            return reply
        }
    }

    /// `accounts:lookup` by uid, email, phone number and identity (`federatedUserId`), in that order, each account
    /// once; identifiers that match nothing are left out, and with no match the reply has no `users`.
    func adminLookUp(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        if fields.has("initialEmail") { throw EmulatorFailure.notImplemented("Lookup by initialEmail is not implemented.") }
        let uids = try fields.strings("localId")
        let emails = try fields.strings("email")
        let phones = try fields.strings("phoneNumber")
        let identities = try fields.objects("federatedUserId")
        guard uids.count + emails.count + phones.count + identities.count <= Self.maximumBatch else {
            throw EmulatorFailure("INVALID_ARGUMENT : at most \(Self.maximumBatch) identifiers in one lookup")
        }
        var federated: [String] = []
        for identity in identities {
            guard let provider = try identity.string("providerId"), let rawId = try identity.string("rawId") else { continue }
            federated.append(Self.identityKey(provider, rawId, tenant))
        }
        let found = state.withLock { state in
            var found: [EmulatorAccount] = []
            var seen: Set<String> = []
            func add(_ uid: String?) {
                guard let uid, let account = state.accounts[uid], account.tenantId == tenant, seen.insert(uid).inserted else { return }
                found.append(account)
            }
            uids.forEach(add)
            for email in emails { add(state.uidsByEmail[Self.emailKey(email.lowercased(), tenant)]) }
            for phone in phones { add(state.uidsByPhone[Self.phoneKey(phone, tenant)]) }
            for key in federated { add(state.uidsByIdentity[key]) }
            return found
        }
        var reply: [String: Any] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !found.isEmpty { reply["users"] = found.map(\.lookupFields) }
        return reply
    }

    /// `accounts:update` by uid: profile, email, password, phone number, `emailVerified`, `disableUser`,
    /// `customAttributes`, `validSince` (revoking: refresh tokens issued before it end), `deleteAttribute`,
    /// `deleteProvider`, `linkProviderUserInfo`. A disabled account can be changed.
    func adminUpdate(_ fields: RequestFields, tenant: String?, host: String?) throws(EmulatorFailure) -> [String: Any] {
        guard let uid = try fields.string("localId") else { throw EmulatorFailure("MISSING_LOCAL_ID") }
        for name in ["provider", "upgradeToFederatedLogin"] where fields.has(name) {
            throw EmulatorFailure.notImplemented("\(name) is not implemented yet.")
        }
        // `mfa.enrollments` replaces the account's factors (none when empty or left out), as firebase-tools takes it.
        let enrollments = try fields.object("mfa").map { (mfa) throws(EmulatorFailure) -> [RequestFields] in
            if let enrollments = mfa.values["enrollments"], !(enrollments is [Any]) {
                throw EmulatorFailure("Invalid JSON payload received. /mfa/enrollments must be array")
            }
            return try mfa.objects("enrollments")
        }
        let claims = try fields.string("customAttributes")
        if let claims, !claims.isEmpty, let problem = CustomClaims.serviceError(withJSON: claims) { throw EmulatorFailure(problem) }
        let deleted = try fields.strings("deleteAttribute")
        if let unknown = deleted.first(where: { !["DISPLAY_NAME", "PHOTO_URL", "PASSWORD", "EMAIL", "USER_ATTRIBUTE_NAME_UNSPECIFIED"].contains($0) }) {
            throw EmulatorFailure.notImplemented("deleteAttribute: \(unknown.prefix(64))")
        }
        let deletedProviders = try fields.strings("deleteProvider")
        let email = try fields.string("email").flatMap { $0.isEmpty ? nil : $0 }
        let password = try fields.string("password").flatMap { $0.isEmpty ? nil : $0 }
        let phone = try fields.string("phoneNumber").flatMap { $0.isEmpty ? nil : $0 }
        let displayName = try fields.string("displayName")
        let photoUrl = try fields.string("photoUrl")
        let emailVerified = try fields.bool("emailVerified")
        let disable = try fields.bool("disableUser")
        let validSince = try fields.integer("validSince")
        let createdAt = try fields.integer("createdAt")
        let lastLoginAt = try fields.integer("lastLoginAt")
        for time in [validSince.map { $0 * 1000 }, createdAt, lastLoginAt].compactMap({ $0 }) where !(0...253_402_300_799_999).contains(time) {
            throw EmulatorFailure("INVALID_ARGUMENT : a time out of range")
        }
        let link = try fields.object("linkProviderUserInfo").map { (info) throws(EmulatorFailure) in try Self.identity(linking: info) }
        if let password { try Self.checkStrength(password) }
        if let phone { try Self.checkPhone(phone) }
        let normalized = try email.map { (email) throws(EmulatorFailure) in try Self.validEmail(email) }
        var recovery: AuthEmulator.OutOfBandCode?
        defer { if let recovery { oobCodeHandler?(recovery) } }
        return try state.withLock { state throws(EmulatorFailure) in
            guard var account = state.accounts[uid], account.tenantId == tenant else { throw EmulatorFailure("USER_NOT_FOUND") }
            // Every refusal before the first change: a refused update changes nothing.
            let factors = try enrollments.map { (entries) throws(EmulatorFailure) in
                try SecondFactor.requested(entries, generatingIDs: false, existing: account.secondFactors, now: clock())
            }
            if let phone, phone != account.phoneNumber, state.uidsByPhone[Self.phoneKey(phone, tenant)] != nil {
                throw EmulatorFailure("PHONE_NUMBER_EXISTS")
            }
            if let link, let owner = state.uidsByIdentity[Self.identityKey(link.providerId, link.rawId, tenant)], owner != uid {
                throw EmulatorFailure("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            var revokes = false
            var newEmail: String?
            let previous = account.email
            if let normalized, try Self.changeEmail(of: &account, to: normalized, in: &state) {
                newEmail = normalized
                revokes = true
                // As firebase-tools does for an administrator's change too: the first address can undo it.
                if account.initialEmail == nil { account.initialEmail = previous }
            }
            if let password {
                account.password = password
                account.importedPasswordHash = nil
                revokes = true
            }
            if let phone, phone != account.phoneNumber {
                if let old = account.phoneNumber { state.uidsByPhone[Self.phoneKey(old, tenant)] = nil }
                account.phoneNumber = phone
                state.uidsByPhone[Self.phoneKey(phone, tenant)] = uid
            }
            if let displayName { account.displayName = displayName }
            if let photoUrl { account.photoUrl = photoUrl }
            if let emailVerified { account.emailVerified = emailVerified }
            if let disable { account.disabled = disable }
            if let factors { account.secondFactors = factors }
            if let claims { account.customAttributes = claims.isEmpty ? nil : claims }
            if let createdAt { account.createdAt = createdAt }
            if let lastLoginAt { account.lastLoginAt = lastLoginAt }
            if revokes {
                account.validSince = clock().seconds
                account.tokenGeneration += 1
            }
            if let validSince {
                // Revoking: the sessions begun before it end (their refresh tokens no longer refresh).
                if validSince >= account.validSince { account.tokenGeneration += 1 }
                account.validSince = validSince
            }
            if deleted.contains("DISPLAY_NAME") { account.displayName = nil }
            if deleted.contains("PHOTO_URL") { account.photoUrl = nil }
            if deleted.contains("PASSWORD") {
                account.password = nil
                account.importedPasswordHash = nil
            }
            if deleted.contains("EMAIL"), let old = account.email {
                state.uidsByEmail[Self.emailKey(old, tenant)] = nil
                account.email = nil
                account.emailVerified = false
                account.emailLinkSignIn = false
            }
            for provider in deletedProviders { Self.removeProvider(provider, from: &account, in: &state) }
            if let link { Self.link(link, to: &account, in: &state) }
            if newEmail != nil { recovery = makeRecoveryCode(for: account, host: host, in: &state) }
            state.accounts[uid] = account
            var reply: [String: Any] = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "localId": uid, "emailVerified": account.emailVerified,
                "providerUserInfo": account.providerUserInfoFields,
            ]
            reply["email"] = account.email
            reply["displayName"] = account.displayName
            reply["photoUrl"] = account.photoUrl
            reply["newEmail"] = newEmail
            return reply
        }
    }

    /// `accounts:delete` by uid.
    func adminDelete(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        guard let uid = try fields.string("localId") else { throw EmulatorFailure("MISSING_LOCAL_ID") }
        return try state.withLock { state throws(EmulatorFailure) in
            guard let account = state.accounts[uid], account.tenantId == tenant else { throw EmulatorFailure("USER_NOT_FOUND") }
            Self.remove(account, from: &state)
            return ["kind": "identitytoolkit#DeleteAccountResponse"]
        }
    }

    /// `GET accounts:batchGet`: accounts by uid, a page of `maxResults` (default 20, at most 1000) after
    /// `nextPageToken` (the last uid of the page before); `nextPageToken` when more follow.
    func batchGet(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        let (page, next) = Self.page(
            of: accounts(of: tenant), by: \.localId, size: try fields.integer("maxResults"), after: try fields.string("nextPageToken"))
        var reply: [String: Any] = ["kind": "identitytoolkit#DownloadAccountResponse", "users": page.map(\.lookupFields)]
        reply["nextPageToken"] = next
        return reply
    }

    /// The accounts of `tenant`, in no order.
    private func accounts(of tenant: String?) -> [EmulatorAccount] {
        state.withLock { state in state.accounts.values.filter { $0.tenantId == tenant } }
    }

    /// `accounts:batchDelete`: each uid that exists is deleted; one not disabled only with `force`, else it is
    /// listed in `errors`.
    func batchDelete(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        let uids = try fields.strings("localIds")
        guard (1...Self.maximumBatch).contains(uids.count) else { throw EmulatorFailure("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let force = try fields.bool("force") ?? false
        let errors: [[String: Any]] = state.withLock { state in
            var errors: [[String: Any]] = []
            for (index, uid) in uids.enumerated() {
                guard let account = state.accounts[uid], account.tenantId == tenant else { continue }
                guard force || account.disabled else {
                    errors.append(["index": index, "localId": uid, "message": "NOT_DISABLED : Disable the account before batch deletion."])
                    continue
                }
                Self.remove(account, from: &state)
            }
            return errors
        }
        return errors.isEmpty ? [:] : ["errors": errors]
    }

    /// `accounts:query`: the accounts matching any `expression` (`email`, `userId`, `phoneNumber`), or all;
    /// sorted by `sortBy` in `order`, then `offset` and `limit` (at most 500). With `returnUserInfo: false`,
    /// the count alone.
    func query(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        let returnUserInfo = try fields.bool("returnUserInfo") ?? true
        var expressions: [(email: String?, uid: String?, phone: String?)] = []
        for expression in try fields.objects("expression") {
            expressions.append((try expression.string("email")?.lowercased(), try expression.string("userId"), try expression.string("phoneNumber")))
        }
        let limit = try fields.integer("limit") ?? 500
        let offset = try fields.integer("offset") ?? 0
        guard (0...500).contains(limit), offset >= 0 else { throw EmulatorFailure("INVALID_ARGUMENT : limit is 0 to 500, offset at least 0") }
        let order = try fields.string("order") ?? "ASC"
        guard ["ASC", "DESC", "ORDER_UNSPECIFIED"].contains(order) else { throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'order'") }
        let sortBy = try fields.string("sortBy") ?? "USER_ID"
        // By uid first: the order of USER_ID, and of ties under the other orders.
        var matching = accounts(of: tenant).sorted { $0.localId.utf8.lexicographicallyPrecedes($1.localId.utf8) }.filter { account in
            expressions.isEmpty || expressions.contains { expression in
                (expression.email.map { $0 == account.email } ?? true) && (expression.uid.map { $0 == account.localId } ?? true)
                    && (expression.phone.map { $0 == account.phoneNumber } ?? true)
            }
        }
        let count = matching.count
        guard returnUserInfo else { return ["recordsCount": String(count)] }
        switch sortBy {
        case "USER_ID", "SORT_BY_FIELD_UNSPECIFIED": break
        case "NAME": matching.sort { ($0.displayName ?? "") < ($1.displayName ?? "") }
        case "CREATED_AT": matching.sort { $0.createdAt < $1.createdAt }
        case "LAST_LOGIN_AT": matching.sort { ($0.lastLoginAt ?? 0) < ($1.lastLoginAt ?? 0) }
        case "USER_EMAIL": matching.sort { ($0.email ?? "") < ($1.email ?? "") }
        default: throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'sort_by'")
        }
        if order == "DESC" { matching.reverse() }
        let page = matching.dropFirst(Int(min(offset, Int64(count)))).prefix(Int(limit))
        return ["recordsCount": String(count), "userInfo": page.map(\.lookupFields)]
    }

    // MARK: Rules

    static func checkUID(_ uid: String) throws(EmulatorFailure) {
        guard (1...128).contains(uid.count) else { throw EmulatorFailure("INVALID_LOCAL_ID : a uid is 1 to 128 characters") }
    }

    /// An E.164 number (``isPhoneNumber(_:)``), or `INVALID_PHONE_NUMBER`.
    static func checkPhone(_ phone: String) throws(EmulatorFailure) {
        guard isPhoneNumber(phone) else { throw EmulatorFailure("INVALID_PHONE_NUMBER : Invalid format.") }
    }

    /// The identity of `linkProviderUserInfo`.
    /// A `linkProviderUserInfo`'s method, as firebase-tools checks it: `providerId` first, then `rawId`.
    static func identity(linking info: RequestFields) throws(EmulatorFailure) -> EmulatorAccount.ProviderIdentity {
        guard let provider = try info.string("providerId"), !provider.isEmpty else { throw EmulatorFailure("MISSING_PROVIDER_ID") }
        guard let rawId = try info.string("rawId"), !rawId.isEmpty else { throw EmulatorFailure("MISSING_RAW_ID") }
        guard !["password", "phone"].contains(provider) else { throw EmulatorFailure("INVALID_PROVIDER_ID : \(provider)") }
        var identity = EmulatorAccount.ProviderIdentity(
            providerId: provider, rawId: rawId, email: try info.string("email"), displayName: try info.string("displayName"),
            photoUrl: try info.string("photoUrl"), screenName: try info.string("screenName"))
        identity.federatedId = try info.string("federatedId")
        return identity
    }

    /// Links `link` to `account` (replacing its method of that provider), after the caller checked that no other
    /// account holds it.
    static func link(_ link: EmulatorAccount.ProviderIdentity, to account: inout EmulatorAccount, in state: inout State) {
        removeProvider(link.providerId, from: &account, in: &state)
        account.identities.append(link)
        state.uidsByIdentity[identityKey(link.providerId, link.rawId, account.tenantId)] = account.localId
    }
}
