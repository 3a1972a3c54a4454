import Foundation

// The rules an address, a password and the account indexes follow.
extension EmulatorService {
    /// Whether `text` is an absolute URI with a scheme and a host, as firebase-tools requires of a continue URL
    /// and a blocking function's URI.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let url = URLComponents(string: text) else { return false }
        return url.scheme != nil && url.host?.isEmpty == false
    }

    static func validEmail(_ email: String) throws(EmulatorFailure) -> String {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, email.utf8.count <= 320,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw EmulatorFailure("INVALID_EMAIL") }
        return email.lowercased()
    }

    static func checkStrength(_ password: String) throws(EmulatorFailure) {
        guard password.count >= 6 else { throw EmulatorFailure("WEAK_PASSWORD : Password should be at least 6 characters") }
    }

    static func emailKey(_ email: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(email)" }

    static func identityKey(_ provider: String, _ rawId: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(provider)|\(rawId)" }

    static func phoneKey(_ phoneNumber: String, _ tenant: String?) -> String { "\(tenant ?? "")|\(phoneNumber)" }

    /// Gives `account` the address `normalized` (a valid, lower-cased one), unverified, and indexes it; `false`
    /// when it already has it.
    static func changeEmail(of account: inout EmulatorAccount, to normalized: String, in state: inout State) throws(EmulatorFailure) -> Bool {
        guard normalized != account.email else { return false }
        let key = emailKey(normalized, account.tenantId)
        guard state.uidsByEmail[key] == nil else { throw EmulatorFailure("EMAIL_EXISTS") }
        if let old = account.email { state.uidsByEmail[emailKey(old, account.tenantId)] = nil }
        state.uidsByEmail[key] = account.localId
        account.email = normalized
        account.emailVerified = false
        return true
    }

    /// Unlinks a sign-in method (`deleteProvider`): `password` takes the address and password with it, `phone`
    /// the phone number; an identity provider's ID its identity.
    static func removeProvider(_ provider: String, from account: inout EmulatorAccount, in state: inout State) {
        switch provider {
        case "password":
            if let old = account.email { state.uidsByEmail[emailKey(old, account.tenantId)] = nil }
            account.email = nil
            account.password = nil
            account.importedPasswordHash = nil
            account.emailVerified = false
            account.emailLinkSignIn = false
        case "phone":
            if let old = account.phoneNumber { state.uidsByPhone[phoneKey(old, account.tenantId)] = nil }
            account.phoneNumber = nil
        default:
            for identity in account.identities where identity.providerId == provider {
                state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = nil
            }
            account.identities.removeAll { $0.providerId == provider }
        }
    }

    static func remove(_ account: EmulatorAccount, from state: inout State) {
        state.accounts[account.localId] = nil
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = nil }
        if let phone = account.phoneNumber { state.uidsByPhone[phoneKey(phone, account.tenantId)] = nil }
        for identity in account.identities {
            state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = nil
        }
    }

    /// Indexes `account` (its email address and identities) and stores it.
    static func store(_ account: EmulatorAccount, in state: inout State) {
        state.accounts[account.localId] = account
        if let email = account.email { state.uidsByEmail[emailKey(email, account.tenantId)] = account.localId }
        if let phone = account.phoneNumber { state.uidsByPhone[phoneKey(phone, account.tenantId)] = account.localId }
        for identity in account.identities {
            state.uidsByIdentity[identityKey(identity.providerId, identity.rawId, account.tenantId)] = account.localId
        }
    }
}
