import Foundation
import SystemSupport

// accounts:batchCreate (the Admin SDKs' importUsers), as Firebase's Auth emulator serves it: the request as a
// whole is checked first (a 400 for all), then each user, whose failure is listed as `{index, message}` while
// the others are imported.
extension EmulatorService {
    func batchCreate(_ fields: RequestFields, tenant: String?) throws(EmulatorFailure) -> [String: Any] {
        let users = try fields.objects("users")
        guard !users.isEmpty else { throw EmulatorFailure("MISSING_USER_ACCOUNT") }
        guard users.count <= Self.maximumBatch else {
            throw EmulatorFailure("INVALID_ARGUMENT : at most \(Self.maximumBatch) users in one import")
        }
        let algorithm = try fields.string("hashAlgorithm")
        if let algorithm, !Self.hashAlgorithms.contains(algorithm) { throw EmulatorFailure("INVALID_HASH_ALGORITHM") }
        for user in users where algorithm == nil {
            // Firebase's emulator's own hash needs no algorithm, as in firebase-tools.
            if let hash = try user.string("passwordHash"), Self.passwordInEmulatorHash(hash) == nil {
                throw EmulatorFailure("MISSING_HASH_ALGORITHM")
            }
        }
        for name in ["signerKey", "saltSeparator", "passwordHashOrder"] { _ = try fields.string(name) }
        for name in ["rounds", "memoryCost", "cpuMemCost", "dkLen", "parallelization", "blockSize"] { _ = try fields.integer(name) }
        let allowOverwrite = try fields.bool("allowOverwrite") ?? false
        let sanityCheck = try fields.bool("sanityCheck") ?? false
        if sanityCheck {
            var emails: Set<String> = []
            var identities: Set<String> = []
            for user in users {
                if let email = try user.string("email"), !emails.insert(email).inserted {
                    throw EmulatorFailure("DUPLICATE_EMAIL : \(email.prefix(320))")
                }
                for info in try user.objects("providerUserInfo") {
                    guard let provider = try info.string("providerId"), let rawId = try info.string("rawId") else { continue }
                    guard identities.insert(Self.identityKey(provider, rawId, nil)).inserted else {
                        throw EmulatorFailure("DUPLICATE_RAW_ID : Provider id(\(provider.prefix(128))), Raw id(\(rawId.prefix(128)))")
                    }
                }
            }
        }
        if !allowOverwrite {
            var uids: Set<String> = []
            for user in users {
                let uid = try user.string("localId") ?? ""
                guard uids.insert(uid).inserted else { throw EmulatorFailure("DUPLICATE_LOCAL_ID : \(uid.prefix(128))") }
            }
        }
        let errors: [[String: Any]] = state.withLock { state in
            var errors: [[String: Any]] = []
            let now = clock()
            for (index, user) in users.enumerated() {
                do throws(EmulatorFailure) {
                    let account = try importedAccount(user, tenant: tenant, now: now)
                    try Self.admit(account, replacing: allowOverwrite, maximumAccounts: maximumAccounts, in: &state)
                } catch {
                    errors.append(["index": index, "message": error.message])
                }
            }
            return errors
        }
        return ["kind": "identitytoolkit#UploadAccountResponse", "error": errors]
    }

    /// One user of an import, checked alone.
    private func importedAccount(_ user: RequestFields, tenant: String?, now: Date) throws(EmulatorFailure) -> EmulatorAccount {
        guard let uid = try user.string("localId") else { throw EmulatorFailure("localId is missing") }
        try Self.checkUID(uid)
        if try user.string("tenantId") != tenant, user.has("tenantId") {
            throw EmulatorFailure("Tenant id in userInfo does not match the tenant id in request.")
        }
        var account = EmulatorAccount(localId: uid, createdAt: try user.integer("createdAt") ?? now.milliseconds, tenantId: tenant)
        guard (0...253_402_300_799_999).contains(account.createdAt) else { throw EmulatorFailure("createdAt is invalid") }
        account.validSince = now.seconds
        account.lastLoginAt = try user.integer("lastLoginAt")
        account.displayName = try user.string("displayName")
        account.photoUrl = try user.string("photoUrl")
        account.emailVerified = try user.bool("emailVerified") ?? false
        account.disabled = try user.bool("disabled") ?? false
        if let email = try user.string("email") {
            guard let normalized = try? Self.validEmail(email) else { throw EmulatorFailure("email is invalid") }
            account.email = normalized
        }
        if let hash = try user.string("passwordHash") {
            // Firebase's emulator's own form (`fakeHash:salt=…:password=…`, as text or base64) carries the password.
            if let password = Self.passwordInEmulatorHash(hash) {
                account.password = password
            } else {
                account.importedPasswordHash = (hash, try user.string("salt"))
            }
        } else if let password = try user.string("rawPassword") {
            account.password = password
        }
        if let claims = try user.string("customAttributes"), !claims.isEmpty {
            switch CustomClaims.serviceError(withJSON: claims) {
            case nil: account.customAttributes = claims
            case "CLAIMS_TOO_LARGE": throw EmulatorFailure("Custom claims provided are too large.")
            case "INVALID_CLAIMS": throw EmulatorFailure("Invalid custom claims provided.")
            default: throw EmulatorFailure("Custom claims provided include a reserved claim.")
            }
        }
        for info in try user.objects("providerUserInfo") {
            let provider = try info.string("providerId")
            if provider == "password" || provider == "phone" { continue }
            guard let provider, let rawId = try info.string("rawId") else {
                if try info.string("federatedId") != nil {
                    throw EmulatorFailure(
                        "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))")
                }
                throw EmulatorFailure("federatedId or (providerId & rawId) is required")
            }
            account.identities.removeAll { $0.providerId == provider }
            var identity = EmulatorAccount.ProviderIdentity(
                providerId: provider, rawId: rawId, email: try info.string("email"), displayName: try info.string("displayName"),
                photoUrl: try info.string("photoUrl"), screenName: try info.string("screenName"))
            identity.federatedId = try info.string("federatedId")
            account.identities.append(identity)
        }
        if let phone = try user.string("phoneNumber") {
            guard (try? Self.checkPhone(phone)) != nil else { throw EmulatorFailure("phone number format is invalid") }
            account.phoneNumber = phone
        }
        let entries = try user.objects("mfaInfo")
        // A second factor belongs to an account with a verified address, checked first as firebase-tools checks it.
        if !entries.isEmpty {
            guard account.email != nil else { throw EmulatorFailure("Second factor account requires email to be presented.") }
            guard account.emailVerified else { throw EmulatorFailure("Second factor account requires email to be verified.") }
        }
        let factors = try entries.map { (entry) throws(EmulatorFailure) -> ExportedSecondFactor in
            guard let data = try? JSONSerialization.data(withJSONObject: entry.values),
                let factor = try? JSONDecoder().decode(ExportedSecondFactor.self, from: data)
            else { throw EmulatorFailure("INVALID_ARGUMENT : mfaInfo entries are objects of strings") }
            return factor
        }
        account.secondFactors = try ExportedSecondFactor.factors(factors, now: now)
        return account
    }

    /// Stores an imported account, unless its uid is taken (and not to be replaced) or its address, phone number
    /// or an identity belongs to another account.
    private static func admit(
        _ account: EmulatorAccount, replacing: Bool, maximumAccounts: Int, in state: inout State
    ) throws(EmulatorFailure) {
        let old = state.accounts[account.localId]
        if old != nil, !replacing { throw EmulatorFailure("localId belongs to an existing account - can not overwrite.") }
        if old == nil, state.accounts.count >= maximumAccounts {
            throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumAccounts) accounts")
        }
        func taken(_ owner: String?) -> Bool { owner.map { $0 != account.localId } ?? false }
        if let email = account.email, taken(state.uidsByEmail[emailKey(email, account.tenantId)]) {
            throw EmulatorFailure("email exists in other account in database")
        }
        if let phone = account.phoneNumber, taken(state.uidsByPhone[phoneKey(phone, account.tenantId)]) {
            throw EmulatorFailure("phone number exists in other account in database")
        }
        for identity in account.identities where taken(state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)]) {
            throw EmulatorFailure("raw id exists in other account in database")
        }
        if let old { remove(old, from: &state) }
        store(account, in: &state)
    }

    /// The password in a hash of Firebase's emulator (`fakeHash:salt=SALT:password=PASSWORD`), given as text or
    /// as base64 (as the Admin SDKs send hashes); `nil` for any other hash.
    static func passwordInEmulatorHash(_ hash: String) -> String? {
        let prefix = "fakeHash:salt="
        let text: String
        if hash.hasPrefix(prefix) {
            text = hash
        } else if let data = Data(base64Encoded: hash) ?? Base64URL.decode(Substring(hash)), let decoded = String(data: data, encoding: .utf8),
            decoded.hasPrefix(prefix)
        {
            text = decoded
        } else {
            return nil
        }
        guard let range = text.range(of: ":password=") else { return nil }
        return String(text[range.upperBound...])
    }
}
