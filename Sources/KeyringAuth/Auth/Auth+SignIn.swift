import Dispatch
import Foundation
import Logging
import SecretKeychain

// Signing in and out: the backend call first, then one keychain transition that saves the user and makes
// it current (or, for the CLI, switches scope with it).
extension Auth {
    /// Makes `user` the current user and saves it to the current group's item. A user signed in
    /// with another API key is first looked up through this app's backend. The `User` object
    /// passed in becomes ``currentUser`` (so references to it stay current) when it belongs to
    /// this `Auth`; a user of another `Auth` updates the current object of the same account, or
    /// becomes a new object of this one.
    ///
    /// - Throws: ``AuthErrorCode/nullUser`` for `nil`, ``AuthErrorCode/tenantIDMismatch`` for a user
    ///   of another tenant, or a keychain or backend error; on failure nothing has changed.
    public func updateCurrentUser(_ user: User?) async throws(AuthError) {
        guard let user else { throw AuthError(.nullUser, "updateCurrentUser needs a user; pass a signed-in user.") }
        var record = user.storedRecord
        if record.apiKey != configuration.backend.apiKey {
            let account = try await configuration.backend.lookUp(idToken: record.tokens.idToken)
            record.apply(account)
            record.apiKey = configuration.backend.apiKey
        }
        try checkTenant(of: record, from: "The user passed to updateCurrentUser")
        let adoptedRecord = record
        try await commit(adoptedRecord) { current in
            let adopted: User
            if user.auth === self || user.auth == nil {
                adopted = user
            } else if let current, current.uid == adoptedRecord.uid {
                adopted = current
            } else {
                return User(record: adoptedRecord, auth: self)
            }
            adopted.record.withLock { $0 = adoptedRecord }
            adopted.adopt(by: self)
            return adopted
        }
    }

    /// Signs in anonymously; returns the current user when it already is anonymous.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func signInAnonymously() async throws(AuthError) -> AuthDataResult {
        try await completeStartupOffPool()
        if let current = currentUser, current.isAnonymous { return AuthDataResult(user: current) }
        let signedIn = try await configuration.backend.signUpAnonymously(tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: true)
    }

    /// Signs in with an email address and password.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func signIn(withEmail email: String, password: String) async throws(AuthError) -> AuthDataResult {
        let signedIn = try await configuration.backend.signIn(email: email, password: password, tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: false)
    }

    /// Creates an account with an email address and password and signs it in.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func createUser(withEmail email: String, password: String) async throws(AuthError) -> AuthDataResult {
        let signedIn = try await configuration.backend.signUp(email: email, password: password, tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: false)
    }

    // MARK: Signing in to another scope

    /// ``signInAnonymously()`` that leaves the app in `accessGroup` (`nil`: the private scope), as
    /// ``useUserAccessGroup(_:migratingCurrentUser:)`` then a sign-in would, except that the backend
    /// is asked first: a sign-in that fails changes nothing stored (the items, the group choice).
    /// A user already stored anonymously in `accessGroup` is kept, as ``signInAnonymously()`` does.
    package func signInAnonymously(switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await signInAnonymously() }
        // The group's anonymous user is kept as it is stored: switching adopts it without writing it back
        // (which would tell every running app of the group of a change that is none).
        let kept = try await transitionOffPool { () throws(AuthError) -> User? in
            guard try self.readAdoptableUser(in: group)?.isAnonymous == true else { return nil }
            try self.switchGroupHoldingTransitions(to: group, carrying: nil)
            return self.currentUser
        }
        if let kept, kept.isAnonymous { return AuthDataResult(user: kept) }
        let signedIn = try await configuration.backend.signUpAnonymously(tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: true, switchingTo: group)
    }

    /// ``signIn(withEmail:password:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func signIn(withEmail email: String, password: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await signIn(withEmail: email, password: password) }
        let signedIn = try await configuration.backend.signIn(email: email, password: password, tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: false, switchingTo: group)
    }

    /// ``createUser(withEmail:password:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func createUser(withEmail email: String, password: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await createUser(withEmail: email, password: password) }
        let signedIn = try await configuration.backend.signUp(email: email, password: password, tenantID: options.tenantID)
        return try await finishSignIn(signedIn, anonymous: false, switchingTo: group)
    }

    func needsSwitch(to group: AccessGroup?) -> Bool {
        state.withLock { $0.choiceUnknown || $0.group != group }
    }

    /// Switches to `group` carrying the newly signed-in user, all or nothing.
    func finishSignIn(_ signedIn: BackendSignIn, anonymous: Bool, switchingTo group: AccessGroup?) async throws(AuthError) -> AuthDataResult {
        let user = User(record: try await signedInRecord(signedIn, anonymous: anonymous), auth: self)
        try await transitionOffPool { () throws(AuthError) in try self.switchGroupHoldingTransitions(to: group, carrying: user) }
        return AuthDataResult(user: user)
    }

    /// Signs the user out of every app of the current group: deletes the group's stored item.
    /// Does nothing when no one is signed in.
    ///
    /// - Throws: ``AuthError``; when the delete fails, the user stays signed in.
    public func signOut() throws(AuthError) {
        try transition { () throws(AuthError) in try signOutHoldingTransitions() }
    }

    func signOutHoldingTransitions() throws(AuthError) {
        try? completeStartupHoldingTransitions()
        let (group, current) = state.withLock { ($0.group, $0.currentUser) }
        guard current != nil else { return }
        try AuthError.catchingKeychain { () throws(KeychainError) in
            try store.removeData(for: StoredUserKeys.user(options, in: group))
        }
        state.withLock { state in
            state.currentUser = nil
            publish(&state)
        }
    }

    /// ``signOut()`` of `user` if it is still the current user, off the cooperative pool.
    func signOutIfCurrent(_ user: User) async throws(AuthError) {
        try await transitionOffPool { () throws(AuthError) in
            guard self.currentUser === user else { return }
            try self.signOutHoldingTransitions()
        }
    }


    /// Saves `record` to the current group's item and makes the user `makeUser` returns (given the
    /// current user) current; on failure nothing changes. Refused while the group choice is unknown.
    @discardableResult
    func commit(
        _ record: StoredUserRecord, _ makeUser: @escaping @Sendable (User?) -> User
    ) async throws(AuthError) -> User {
        try await transitionOffPool { () throws(AuthError) in
            try self.completeStartupForWriting()
            let group = self.state.withLock { $0.group }
            try self.save(record, in: group)
            return self.state.withLock { state in
                let user = makeUser(state.currentUser)
                state.currentUser = user
                self.publish(&state)
                return user
            }
        }
    }

    /// The record of a user the backend just signed in, with the profile it looks up.
    func signedInRecord(_ signedIn: BackendSignIn, anonymous: Bool) async throws(AuthError) -> StoredUserRecord {
        let account = try await configuration.backend.lookUp(idToken: signedIn.tokens.idToken)
        var record = StoredUserRecord(
            uid: signedIn.uid, isAnonymous: anonymous, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: nil, photoURL: nil, phoneNumber: nil, providerData: [], creationDate: nil, lastSignInDate: nil,
            tenantID: options.tenantID, apiKey: configuration.backend.apiKey, appID: options.appID, tokens: signedIn.tokens)
        record.apply(account)
        return record
    }

    func finishSignIn(_ signedIn: BackendSignIn, anonymous: Bool) async throws(AuthError) -> AuthDataResult {
        let record = try await signedInRecord(signedIn, anonymous: anonymous)
        return AuthDataResult(user: try await commit(record) { _ in User(record: record, auth: self) })
    }
}
