import Foundation

// What AuthEmulator's own Swift API does to the settings and accounts, directly rather than by a request (the Admin
// API's requests: EmulatorService+AdminRouting and EmulatorService+AdminAccounts).
extension EmulatorService {
    var settings: AuthEmulator.Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    var accounts: [EmulatorAccount] {
        state.withLock { $0.accounts.values.sorted { ($0.createdAt, $0.localId) < ($1.createdAt, $1.localId) } }
    }

    func removeAllAccounts() {
        state.withLock { $0.accounts = [:]; $0.uidsByEmail = [:]; $0.uidsByIdentity = [:]; $0.uidsByPhone = [:]; $0.oobCodes = [] }
    }

    /// Changes one account; `false` when there is no such account.
    func modifyAccount(_ uid: String, _ change: (inout EmulatorAccount, Int64) -> Void) -> Bool {
        state.withLock { state in
            guard var account = state.accounts[uid] else { return false }
            change(&account, clock().seconds)
            state.accounts[uid] = account
            return true
        }
    }

    /// Adds accounts, replacing those with the same uid; fails as a whole on a duplicate email.
    func insert(_ imported: [EmulatorAccount]) throws(AuthEmulatorError) {
        try state.withLock { state throws(AuthEmulatorError) in
            var next = state
            for account in imported {
                if let old = next.accounts[account.localId] { Self.remove(old, from: &next) }
                if let email = account.email {
                    let key = Self.emailKey(email, account.tenantId)
                    guard next.uidsByEmail[key] == nil else {
                        throw .invalidImport("two accounts use the email address \(email)")
                    }
                }
                if let phone = account.phoneNumber, next.uidsByPhone[Self.phoneKey(phone, account.tenantId)] != nil {
                    throw .invalidImport("two accounts use the phone number \(phone)")
                }
                for identity in account.identities {
                    guard next.uidsByIdentity[Self.identityKey(identity.providerId, identity.rawId, account.tenantId)] == nil else {
                        throw .invalidImport("two accounts use the \(identity.providerId) identity \(identity.rawId)")
                    }
                }
                Self.store(account, in: &next)
            }
            guard next.accounts.count <= maximumAccounts else {
                throw .invalidImport("it would hold more than \(maximumAccounts) accounts")
            }
            state = next
        }
    }
}
