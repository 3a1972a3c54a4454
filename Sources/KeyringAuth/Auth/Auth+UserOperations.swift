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
            tokens = try await configuration.backend.refresh(refreshToken: user.storedRecord.tokens.refreshToken, context: requestContext)
        } catch where [.userTokenExpired, .userNotFound, .userDisabled, .invalidUserToken].contains(error.code) {
            try await signOutIfCurrent(user)
            throw error
        }
        try await updateIfCurrent(user) { $0.tokens = tokens }
        return tokens
    }

    func reload(_ user: User) async throws(AuthError) {
        let account = try await configuration.backend.lookUp(idToken: user.storedRecord.tokens.idToken, context: requestContext)
        try await updateIfCurrent(user) { $0.apply(account) }
    }

    func updateAccount(of user: User, _ changes: AccountChanges) async throws(AuthError) {
        let idToken = try await user.idToken()
        let context = requestContext
        let tokens = try await configuration.backend.update(idToken: idToken, changes: changes, context: context)
        try await saveTokensAndLookUp(user, tokens: tokens, idToken: idToken, context: context)
    }

    /// Saves the account as looked up again after a change, with the new `tokens` when the change ended the old
    /// session (an email or password change, a second factor enrolled or withdrawn), in one write, so the other
    /// apps of the group get both with one token change; the tokens are saved even if the lookup fails.
    func saveTokensAndLookUp(_ user: User, tokens: AuthTokens?, idToken: String, context: AuthRequestContext) async throws(AuthError) {
        let account: BackendAccount
        do throws(AuthError) {
            account = try await configuration.backend.lookUp(idToken: tokens?.idToken ?? idToken, context: context)
        } catch {
            if let tokens { try await updateIfCurrent(user) { $0.tokens = tokens } }
            throw error
        }
        try await updateIfCurrent(user) { record in
            if let tokens { record.tokens = tokens }
            record.apply(account)
        }
    }

    func deleteAccount(of user: User) async throws(AuthError) {
        try await configuration.backend.delete(idToken: user.storedRecord.tokens.idToken, context: requestContext)
        try await signOutIfCurrent(user)
    }

    func link(_ user: User, with credential: AuthCredential) async throws(AuthError) -> AuthDataResult {
        try credential.checkUsable()
        guard !user.providerData.contains(where: { $0.providerID == credential.provider }) else {
            throw AuthError(
                .providerAlreadyLinked,
                "The user already has a \(credential.provider) sign-in method; unlink it first to link another.")
        }
        let idToken = try await user.idToken()
        let context = requestContext
        let signedIn: BackendSignIn
        if let email = credential as? EmailPasswordCredential {
            signedIn = try await configuration.backend.link(idToken: idToken, email: email.email, password: email.password, context: context)
        } else if let emailLink = credential as? EmailLinkCredential {
            signedIn = try await configuration.backend.signIn(
                email: emailLink.email, emailLinkCode: try emailLink.code, linkingTo: idToken, context: context)
        } else if let phone = credential as? PhoneAuthCredential {
            signedIn = try await configuration.backend.signIn(with: phone, operation: .link, idToken: idToken, context: context)
        } else {
            let oauth = try Self.oauth(credential)
            signedIn = try await configuration.backend.signIn(with: oauth, linkingTo: idToken, creatingAccount: false, context: context)
        }
        try Self.check(signedIn, isOf: user, code: .internalError)
        try await adopt(signedIn, for: user, context: context)
        return SignInMethod.provider(credential.provider).result(for: user, signedIn)
    }

    /// ``User/updatePhoneNumber(_:)``: the number of `credential` replaces the user's (`accounts:signInWithPhoneNumber`
    /// with `operation` `UPDATE` and the user's ID token).
    func updatePhoneNumber(of user: User, _ credential: PhoneAuthCredential) async throws(AuthError) {
        try credential.checkUsable()
        guard case .verification = credential.kind else {
            throw AuthError(
                .missingVerificationCode,
                "A phone number is changed with the code sent to it (PhoneAuthProvider.credential(withVerificationID:verificationCode:)).")
        }
        let idToken = try await user.idToken()
        let context = requestContext
        let signedIn = try await configuration.backend.signIn(with: credential, operation: .update, idToken: idToken, context: context)
        try Self.check(signedIn, isOf: user, code: .internalError)
        try await adopt(signedIn, for: user, context: context)
    }

    func unlink(_ user: User, fromProvider provider: String) async throws(AuthError) {
        guard user.providerData.contains(where: { $0.providerID == provider }) else {
            throw AuthError(.noSuchProvider, "The user has no \(String(reflecting: provider)) sign-in method to unlink.")
        }
        let idToken = try await user.idToken()
        let context = requestContext
        let tokens = try await configuration.backend.update(
            idToken: idToken, changes: AccountChanges(deletedProviders: [provider]), context: context)
        try await saveTokensAndLookUp(user, tokens: tokens, idToken: idToken, context: context)
    }

    func reauthenticate(_ user: User, with credential: AuthCredential) async throws(AuthError) -> AuthDataResult {
        try credential.checkUsable()
        let context = requestContext
        let signedIn: BackendSignIn
        do throws(AuthError) {
            if let email = credential as? EmailPasswordCredential {
                signedIn = try await configuration.backend.signIn(email: email.email, password: email.password, context: context)
            } else if let emailLink = credential as? EmailLinkCredential {
                signedIn = try await signInWithEmailLink(emailLink, context: context)
            } else if let phone = credential as? PhoneAuthCredential {
                // REAUTH: Identity Platform answers USER_NOT_FOUND for a number of no account instead of creating one.
                signedIn = try await configuration.backend.signIn(with: phone, operation: .reauthenticate, idToken: nil, context: context)
            } else {
                let oauth = try Self.oauth(credential)
                signedIn = try await configuration.backend.signIn(with: oauth, linkingTo: nil, creatingAccount: false, context: context)
            }
        } catch where error.code == .userNotFound {
            // As Firebase: a credential of no account is not this user's.
            throw AuthError(.userMismatch, "The credential belongs to no account, so not to this user; pass this user's credential.")
        }
        try Self.check(signedIn, isOf: user, code: .userMismatch)
        try await adopt(signedIn, for: user, context: context)
        return SignInMethod.provider(credential.provider).result(for: user, signedIn)
    }

    /// Refuses a sign-in of another account than `user`'s.
    static func check(_ signedIn: BackendSignIn, isOf user: User, code: AuthErrorCode) throws(AuthError) {
        guard signedIn.uid != user.uid else { return }
        throw AuthError(
            code,
            code == .userMismatch
                ? "The credential belongs to another user than the one reauthenticating; pass this user's credential."
                : "The identity service answered for another account than the user's.")
    }

    /// Takes the new tokens of `user` and its account as the backend now describes it, saved in one write when
    /// `user` is current (so the other apps of the group see one change). When the lookup fails the new tokens
    /// are still kept.
    func adopt(_ signedIn: BackendSignIn, for user: User, context: AuthRequestContext) async throws(AuthError) {
        let account: BackendAccount
        do throws(AuthError) {
            account = try await configuration.backend.lookUp(idToken: signedIn.tokens.idToken, context: context)
        } catch {
            try await updateIfCurrent(user) { $0.tokens = signedIn.tokens }
            throw error
        }
        try await updateIfCurrent(user) { record in
            record.tokens = signedIn.tokens
            record.apply(account)
        }
    }

    /// Changes `user`'s record and, when it is the current user and the item still holds its sign-in, saves it
    /// and tells token listeners. When another process replaced the sign-in (another user, a sign-out, a new
    /// sign-in of the account), the item is left as it is and what it holds becomes current.
    func updateIfCurrent(_ user: User, _ change: @escaping @Sendable (inout StoredUserRecord) -> Void) async throws(AuthError) {
        guard currentUser === user else {
            user.record.withLock { change(&$0) }
            return
        }
        try await transitionOffPool { () throws(AuthError) in
            // Checked again under `transitions`: a sign-out or another user's sign-in may have come first,
            // and the change must not be saved where the next user (or nobody) now is.
            guard self.currentUser === user else {
                user.record.withLock { change(&$0) }
                return
            }
            let group = self.state.withLock { $0.group }
            guard try self.storeHoldsSignIn(of: user, in: group) == true else {
                user.record.withLock { change(&$0) }
                self.adoptStoredUserHoldingTransitions(of: group)
                return
            }
            var record = user.storedRecord
            change(&record)
            try self.save(record, in: group)
            user.record.withLock { $0 = record }
            self.state.withLock { self.publish(&$0) }
        }
    }
}
