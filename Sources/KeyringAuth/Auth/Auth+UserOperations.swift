import Dispatch
import Foundation
import Logging
import SecretKeychain

// Operations on a `User`'s behalf (token refresh, reload, account changes, deletion): the backend call,
// then the saved record when the user is still current.
extension Auth {
    func refreshTokens(of user: User) async throws(AuthError) -> AuthTokens {
        let tokens: AuthTokens
        do throws(AuthError) {
            tokens = try await configuration.backend.refresh(refreshToken: user.storedRecord.tokens.refreshToken)
        } catch where [.userTokenExpired, .userNotFound, .userDisabled, .invalidUserToken].contains(error.code) {
            try await signOutIfCurrent(user)
            throw error
        }
        try await updateIfCurrent(user) { $0.tokens = tokens }
        return tokens
    }

    func reload(_ user: User) async throws(AuthError) {
        let account = try await configuration.backend.lookUp(idToken: user.storedRecord.tokens.idToken)
        try await updateIfCurrent(user) { $0.apply(account) }
    }

    func updateAccount(of user: User, _ changes: AccountChanges) async throws(AuthError) {
        let idToken = try await user.getIDToken()
        let tokens = try await configuration.backend.update(idToken: idToken, changes: changes)
        // An email or password change ends the old session: keep the new tokens even if the lookup fails.
        if let tokens { try await updateIfCurrent(user) { $0.tokens = tokens } }
        let account = try await configuration.backend.lookUp(idToken: tokens?.idToken ?? idToken)
        try await updateIfCurrent(user) { $0.apply(account) }
    }

    func deleteAccount(of user: User) async throws(AuthError) {
        try await configuration.backend.delete(idToken: user.storedRecord.tokens.idToken)
        try await signOutIfCurrent(user)
    }

    /// Changes `user`'s record and, when it is the current user, saves it and tells token listeners.
    func updateIfCurrent(_ user: User, _ change: @escaping @Sendable (inout StoredUserRecord) -> Void) async throws(AuthError) {
        guard currentUser === user else {
            user.record.withLock { change(&$0) }
            return
        }
        try await transitionOffPool { () throws(AuthError) in
            var record = user.storedRecord
            change(&record)
            try self.save(record, in: self.state.withLock { $0.group })
            user.record.withLock { $0 = record }
            self.state.withLock { self.publish(&$0) }
        }
    }
}
