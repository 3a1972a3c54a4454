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
    public func updateCurrentUser(_ user: User?) async throws {
        guard let user else { throw AuthError(.nullUser, "updateCurrentUser needs a user; pass a signed-in user.") }
        var record = user.storedRecord
        if record.apiKey != configuration.backend.apiKey {
            let account = try await configuration.backend.lookUp(idToken: record.tokens.idToken, context: requestContext)
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
    public func signInAnonymously() async throws -> AuthDataResult {
        try await completeStartupOffPool()
        if let current = currentUser, current.isAnonymous {
            return AuthDataResult(user: current, additionalUserInfo: AdditionalUserInfo(providerID: "anonymous", isNewUser: false))
        }
        let context = requestContext
        let signedIn = try await configuration.backend.signUpAnonymously(context: context)
        return try await finishSignIn(signedIn, method: .anonymous, context: context)
    }

    /// Signs in with an email address and password.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        let context = requestContext
        let signedIn = try await askingForSecondFactor(.password) { () async throws(AuthError) in
            try await self.configuration.backend.signIn(email: email, password: password, context: context)
        }
        return try await finishSignIn(signedIn, method: .password, context: context)
    }

    /// Creates an account with an email address and password and signs it in.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let context = requestContext
        let signedIn = try await configuration.backend.signUp(email: email, password: password, context: context)
        return try await finishSignIn(signedIn, method: .password, context: context)
    }

    /// Signs in with a credential, as Firebase's `signIn(with:)`: an identity provider's
    /// (``GoogleAuthProvider``, ``GitHubAuthProvider``, ``OAuthProvider``) through `accounts:signInWithIdp`,
    /// creating the account on its first sign-in; an ``EmailAuthProvider`` credential as
    /// ``signIn(withEmail:password:)``. The result's ``AuthDataResult/additionalUserInfo`` holds the
    /// provider's profile and whether the account is new, its ``AuthDataResult/credential`` the provider's
    /// tokens as the service returned them.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidCredential`` for a malformed or expired provider token,
    ///   ``AuthErrorCode/invalidProviderID``, ``AuthErrorCode/accountExistsWithDifferentCredential`` when an
    ///   account already has the email address with another method (its ``AuthError/updatedCredential`` and
    ///   ``AuthError/email`` say which), ``AuthErrorCode/operationNotAllowed`` for a disabled provider, or a
    ///   keychain or network error. A credential that cannot be sent is refused before anything is sent;
    ///   on any failure nothing stored changes and ``currentUser`` is unchanged.
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        try credential.checkUsable()
        if let email = credential as? EmailPasswordCredential {
            return try await signIn(withEmail: email.email, password: email.password)
        }
        let context = requestContext
        let (method, call) = try firstFactor(credential, context: context)
        let signedIn = try await askingForSecondFactor(method, call)
        return try await finishSignIn(signedIn, method: method, context: context)
    }

    /// The backend call that signs in with `credential` (an email link, a phone number's code or proof, an identity
    /// provider's credential; not an email and password), and how the user signed in.
    func firstFactor(
        _ credential: AuthCredential, context: AuthRequestContext
    ) throws(AuthError) -> (SignInMethod, @Sendable () async throws(AuthError) -> BackendSignIn) {
        if let emailLink = credential as? EmailLinkCredential {
            return (.password, { () async throws(AuthError) in try await self.signInWithEmailLink(emailLink, context: context) })
        }
        if let phone = credential as? PhoneAuthCredential {
            return (.provider(PhoneAuthProvider.id), { () async throws(AuthError) in
                try await self.configuration.backend.signIn(with: phone, operation: .signUpOrIn, idToken: nil, context: context)
            })
        }
        let oauth = try Self.oauth(credential)
        return (.provider(oauth.provider), { () async throws(AuthError) in
            try await self.configuration.backend.signIn(with: oauth, linkingTo: nil, creatingAccount: true, context: context)
        })
    }

    /// Signs in with a custom token the app's own server minted with the Admin SDK, as Firebase's
    /// `signIn(withCustomToken:)` (`accounts:signInWithCustomToken`): the token names the uid (and any
    /// claims for the session); the account is created on its first sign-in.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidCustomToken`` for an empty, oversized (over
    ///   ``AuthCredential/maximumFieldBytes``), malformed or expired token, ``AuthErrorCode/customTokenMismatch``
    ///   for a token of another project, ``AuthErrorCode/tenantIDMismatch`` for a token of another tenant
    ///   than ``tenantID``, or a keychain or network error; on failure nothing stored changes.
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        try AuthCredential.checkField(token, "custom token", code: .invalidCustomToken, required: true)
        let context = requestContext
        let signedIn = try await configuration.backend.signIn(customToken: token, context: context)
        return try await finishSignIn(signedIn, method: .custom, context: context)
    }

    /// The credential as an identity provider's, or ``AuthErrorCode/invalidCredential``.
    static func oauth(_ credential: AuthCredential) throws(AuthError) -> OAuthCredential {
        guard let oauth = credential as? OAuthCredential else {
            throw AuthError(.invalidCredential, "A \(credential.provider) credential cannot be used here.")
        }
        return oauth
    }

    // MARK: Signing in to another scope

    /// ``signInAnonymously()`` that leaves the app in `accessGroup` (`nil`: the private scope), as
    /// ``useUserAccessGroup(_:migratingCurrentUser:)`` then a sign-in would, except that the backend
    /// is asked first: a sign-in that fails changes nothing stored (the items, the group choice).
    /// A user already stored anonymously in `accessGroup` is kept, as ``signInAnonymously()`` does.
    package func signInAnonymously(switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await AuthError.typed { try await signInAnonymously() } }
        // The group's anonymous user is kept as it is stored: switching adopts it without writing it back
        // (which would tell every running app of the group of a change that is none).
        let kept = try await transitionOffPool { () throws(AuthError) -> User? in
            guard try self.readAdoptableUser(in: group)?.isAnonymous == true else { return nil }
            try self.switchGroupHoldingTransitions(to: group, carrying: nil)
            return self.currentUser
        }
        if let kept, kept.isAnonymous {
            return AuthDataResult(user: kept, additionalUserInfo: AdditionalUserInfo(providerID: "anonymous", isNewUser: false))
        }
        let context = requestContext
        let signedIn = try await configuration.backend.signUpAnonymously(context: context)
        return try await finishSignIn(signedIn, method: .anonymous, context: context, switchingTo: group)
    }

    /// ``signIn(withEmail:password:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func signIn(withEmail email: String, password: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await AuthError.typed { try await signIn(withEmail: email, password: password) } }
        let context = requestContext
        let signedIn = try await askingForSecondFactor(.password, switchingTo: group) { () async throws(AuthError) in
            try await self.configuration.backend.signIn(email: email, password: password, context: context)
        }
        return try await finishSignIn(signedIn, method: .password, context: context, switchingTo: group)
    }

    /// ``createUser(withEmail:password:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func createUser(withEmail email: String, password: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await AuthError.typed { try await createUser(withEmail: email, password: password) } }
        let context = requestContext
        let signedIn = try await configuration.backend.signUp(email: email, password: password, context: context)
        return try await finishSignIn(signedIn, method: .password, context: context, switchingTo: group)
    }

    /// ``signIn(with:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func signIn(with credential: AuthCredential, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await AuthError.typed { try await signIn(with: credential) } }
        try credential.checkUsable()
        if let email = credential as? EmailPasswordCredential {
            return try await signIn(withEmail: email.email, password: email.password, switchingTo: accessGroup)
        }
        let context = requestContext
        let (method, call) = try firstFactor(credential, context: context)
        let signedIn = try await askingForSecondFactor(method, switchingTo: group, call)
        return try await finishSignIn(signedIn, method: method, context: context, switchingTo: group)
    }

    /// ``signIn(withCustomToken:)`` that leaves the app in `accessGroup`; see ``signInAnonymously(switchingTo:)``.
    package func signIn(withCustomToken token: String, switchingTo accessGroup: String?) async throws(AuthError) -> AuthDataResult {
        let group = try Self.validated(accessGroup)
        guard needsSwitch(to: group) else { return try await AuthError.typed { try await signIn(withCustomToken: token) } }
        try AuthCredential.checkField(token, "custom token", code: .invalidCustomToken, required: true)
        let context = requestContext
        let signedIn = try await configuration.backend.signIn(customToken: token, context: context)
        return try await finishSignIn(signedIn, method: .custom, context: context, switchingTo: group)
    }

    func needsSwitch(to group: AccessGroup?) -> Bool {
        state.withLock { $0.choiceUnknown || $0.group != group }
    }

    /// Switches to `group` carrying the newly signed-in user, all or nothing.
    func finishSignIn(
        _ signedIn: BackendSignIn, method: SignInMethod, context: AuthRequestContext, switchingTo group: AccessGroup?
    ) async throws(AuthError) -> AuthDataResult {
        let user = User(record: try await signedInRecord(signedIn, method: method, context: context), auth: self)
        try await transitionOffPool { () throws(AuthError) in try self.switchGroupHoldingTransitions(to: group, carrying: user) }
        return method.result(for: user, signedIn)
    }

    /// Signs the user out of every app of the current group: deletes the group's stored item.
    /// Does nothing when no one is signed in.
    ///
    /// - Throws: ``AuthError``; when the delete fails, the user stays signed in.
    public func signOut() throws {
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

    /// ``signOut()`` of `user` if it is still the current user, off the cooperative pool. When the item no longer
    /// holds its sign-in (another process signed another user in, or out), the item is left as it is and what
    /// it holds becomes current; an item that cannot be decoded is left too, and the user signed out here only.
    func signOutIfCurrent(_ user: User) async throws(AuthError) {
        try await transitionOffPool { () throws(AuthError) in
            guard self.currentUser === user else { return }
            let group = self.state.withLock { $0.group }
            switch try self.storeHoldsSignIn(of: user, in: group) {
            case true?:
                try self.signOutHoldingTransitions()
            case false?:
                self.adoptStoredUserHoldingTransitions(of: group)
            case nil:
                self.state.withLock { state in
                    state.currentUser = nil
                    self.publish(&state)
                }
            }
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
    func signedInRecord(_ signedIn: BackendSignIn, method: SignInMethod, context: AuthRequestContext) async throws(AuthError) -> StoredUserRecord {
        let account = try await configuration.backend.lookUp(idToken: signedIn.tokens.idToken, context: context)
        var record = StoredUserRecord(
            uid: signedIn.uid, isAnonymous: method == .anonymous, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: nil, photoURL: nil, phoneNumber: nil, providerData: [], creationDate: nil, lastSignInDate: nil,
            tenantID: context.tenantID, apiKey: configuration.backend.apiKey, appID: options.appID, tokens: signedIn.tokens)
        record.apply(account)
        return record
    }

    func finishSignIn(_ signedIn: BackendSignIn, method: SignInMethod, context: AuthRequestContext) async throws(AuthError) -> AuthDataResult {
        let record = try await signedInRecord(signedIn, method: method, context: context)
        return method.result(for: try await commit(record) { _ in User(record: record, auth: self) }, signedIn)
    }
}

/// How a user signed in, for the record (anonymous or not) and ``AdditionalUserInfo``.
enum SignInMethod: Equatable, Sendable {
    case anonymous, password, custom
    case provider(String)

    /// What a sign-in by this method returns.
    func result(for user: User, _ signedIn: BackendSignIn) -> AuthDataResult {
        if let answer = signedIn.identityProvider {
            return AuthDataResult(
                user: user, additionalUserInfo: AdditionalUserInfo(answer, isNewUser: signedIn.isNewUser), credential: answer.credential)
        }
        let providerID = switch self {
        case .anonymous: "anonymous"
        case .password: EmailAuthProvider.id
        case .custom: "custom"
        case .provider(let id): id
        }
        return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: providerID, isNewUser: signedIn.isNewUser))
    }
}
