import Dispatch
import Foundation
import Logging
import SecretKeychain
import Synchronization

/// A handle that removes a listener.
public struct AuthListenerHandle: Hashable, Sendable {
    let id: Int
}

/// Firebase Auth's API over a ``KeychainStore``: one instance per app name, sharing the signed-in
/// user with the other apps of an access group, and (``AuthConfiguration/liveSync``) following
/// their changes while it runs.
///
/// The stored user is loaded when the instance is created, so the first ``currentUser`` read
/// already sees it. Methods that touch the keychain synchronously (``useUserAccessGroup(_:migratingCurrentUser:)``,
/// ``getStoredUser(forAccessGroup:)``, ``signOut()``) block the calling thread; the `async` ones
/// run their keychain work on a queue of their own.
public final class Auth: Sendable {
    public typealias Listener = @Sendable (Auth, User?) -> Void

    private struct State {
        var currentUser: User?
        var group: AccessGroup?
        var startupError: AuthError?
        /// The saved access-group choice could not be read: nothing is written until it is known.
        var choiceUnknown = false
        /// The current group's user could not be read at start-up; read again by the next call that needs it.
        var userUnread = false
        var stateListeners: [Int: Listener] = [:]
        var tokenListeners: [Int: Listener] = [:]
        var streams: [Int: AsyncStream<User?>.Continuation] = [:]
        var nextID = 0
        var notifiedUID: String?
        var notifiedToken: String?
    }

    public let configuration: AuthConfiguration
    private let state: Mutex<State>
    /// Held across every keychain write and the state change it goes with, so that the stored
    /// item and ``currentUser`` always agree, whatever calls run concurrently.
    private let transitions = Mutex(())
    private let worker = DispatchQueue(label: "KeyringAuth.Auth")
    /// The observation of the current group's item while live sync is on; released (ending it) with the instance.
    private let groupObservation = Mutex<KeychainObservation?>(nil)

    private var options: AuthAppOptions { configuration.options }
    private var store: any KeychainStore { configuration.store }
    private var logger: Logger { configuration.logger }

    // MARK: Instances

    private static let instances = Mutex<[String: Auth]>([:])

    /// Creates the ``Auth`` of `configuration.options.appName`, replacing any earlier one.
    @discardableResult
    public static func configure(_ configuration: AuthConfiguration) -> Auth {
        let auth = Auth(configuration: configuration)
        instances.withLock { $0[configuration.options.appName] = auth }
        return auth
    }

    /// The ``Auth`` of the default app (`[DEFAULT]`); ``configure(_:)`` must have been called.
    public static func auth() -> Auth { auth(app: AuthAppOptions.defaultAppName) }

    /// The ``Auth`` of the app named `name`; ``configure(_:)`` must have been called for it.
    public static func auth(app name: String) -> Auth {
        guard let auth = instances.withLock({ $0[name] }) else {
            preconditionFailure("No Auth is configured for app \(name); call Auth.configure(_:) first.")
        }
        return auth
    }

    /// Creates an instance and loads the saved access-group choice and the stored user (blocking).
    /// In a shared group with ``AuthConfiguration/liveSync`` on, it starts following the group's item.
    ///
    /// A failure is kept in ``startupError`` and logged; nothing stored is changed. When the choice
    /// is known but the group's user cannot be read (a locked keyring, say), ``currentUser`` is `nil`
    /// until the user can be read: through live sync, or by the next call that reads or writes it.
    /// Nothing is written anywhere while the choice itself cannot be read.
    public init(configuration: AuthConfiguration) {
        self.configuration = configuration
        self.state = Mutex(State())
        // Held while loading, so that a change reported meanwhile is applied after the load.
        transitions.withLock { _ in
            var loaded = State(choiceUnknown: true, userUnread: true)
            do throws(AuthError) {
                loaded.group = try loadGroupChoice()
                loaded.choiceUnknown = false
                // Followed before the read, so that no change falls between the two.
                groupObservation.withLock { $0 = followSharedUser(in: loaded.group) }
                loaded.currentUser = try readAdoptableUser(in: loaded.group)
                loaded.userUnread = false
            } catch {
                configuration.logger.error("Could not load the stored user", metadata: ["error": "\(error)"])
                loaded.startupError = error
            }
            loaded.notifiedUID = loaded.currentUser?.uid
            loaded.notifiedToken = loaded.currentUser?.snapshot.tokens.idToken
            state.withLock { $0 = loaded }
        }
    }

    // MARK: State

    /// The signed-in user, or `nil`.
    public var currentUser: User? { state.withLock { $0.currentUser } }

    /// The access group the app shares its user in, or `nil` for the private scope.
    public var userAccessGroup: String? { state.withLock { $0.group?.rawValue } }

    /// Why loading the saved access-group choice or the stored user failed at start-up, while
    /// it has not been loaded since (``currentUser`` is `nil` meanwhile).
    public var startupError: AuthError? { state.withLock { $0.startupError } }

    /// Whether this instance is following the other apps' changes to its group's user right now:
    /// it is in a shared group, ``AuthConfiguration/liveSync`` is on, and the store's changes can
    /// be followed (a failure to follow them is logged).
    public var isLiveSyncActive: Bool { groupObservation.withLock { $0.map { !$0.isCancelled } ?? false } }

    // MARK: Identity backend

    /// Sends this app's requests to an Auth emulator at `host:port` (Firebase's `useEmulator(withHost:port:)`),
    /// for example the one `keyring-auth emulator` runs. Call it before signing in.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` if the address is not usable or the
    ///   configuration's backend is not an ``IdentityToolkitBackend``.
    public func useEmulator(withHost host: String, port: Int) throws(AuthError) {
        guard let backend = configuration.backend as? IdentityToolkitBackend else {
            throw AuthError(
                .invalidConfiguration,
                "This Auth was configured with its own backend (\(type(of: configuration.backend))); "
                    + "configure it without a backend to use the emulator.")
        }
        try backend.useEmulator(host: host, port: port)
    }

    // MARK: Access groups

    /// Switches the app to `accessGroup` (`nil`: the private scope), as Firebase does: the choice
    /// is saved for the next launch, the user stored in that group becomes the current user
    /// (without being written back), and moving from the private scope to a group deletes the
    /// private item, signing the private user out. Moving back to `nil` deletes nothing.
    ///
    /// - Parameter migratingCurrentUser: When moving from the private scope to a group, copy the
    ///   signed-in user into the group (replacing what is stored there) instead of signing them out.
    /// - Throws: ``AuthError``: an invalid group, ``AuthErrorCode/tenantIDMismatch`` for a group
    ///   user of another tenant, a keychain failure (also when the private item cannot be deleted),
    ///   or ``AuthErrorCode/accessGroupChoiceError``. On failure nothing stored and nothing in
    ///   memory has changed.
    public func useUserAccessGroup(_ accessGroup: String?, migratingCurrentUser: Bool = false) throws(AuthError) {
        let newGroup = try Self.validated(accessGroup)
        try transition { () throws(AuthError) in
            let (oldGroup, current) = state.withLock { ($0.group, $0.currentUser) }
            let carried = migratingCurrentUser && oldGroup == nil && newGroup != nil ? current : nil
            try switchGroupHoldingTransitions(to: newGroup, carrying: carried)
        }
    }

    /// Moves the app to `newGroup`, all or nothing. With `carried`, that user is saved in the new
    /// group's item and becomes current; otherwise the user stored there does. Then the choice is
    /// saved and, when leaving the private scope, the private item is deleted. A failure at any
    /// step puts back what the earlier steps changed and throws.
    private func switchGroupHoldingTransitions(to newGroup: AccessGroup?, carrying carried: User?) throws(AuthError) {
        let (oldGroup, choiceKnown) = state.withLock { ($0.group, !$0.choiceUnknown) }
        // The new group is followed before it is read, so that no change falls between the two.
        let keepsFollowing = choiceKnown && newGroup == oldGroup && isLiveSyncActive
        var newObservation = keepsFollowing ? nil : followSharedUser(in: newGroup)
        defer { newObservation?.cancel() }
        var undo = UndoList(logger: logger)
        let newUser: User?
        do throws(AuthError) {
            if let carried {
                let key = StoredUserKeys.user(options, in: newGroup)
                let previous = try AuthError.catchingKeychain { () throws(KeychainError) in try store.data(for: key) }
                try save(carried.snapshot, in: newGroup)
                undo.add("the user item of \(Self.describe(newGroup))") { () throws(AuthError) in
                    try self.restore(previous, at: key, in: newGroup)
                }
                newUser = carried
            } else {
                newUser = try readAdoptableUser(in: newGroup)
            }
            let appID = options.appID
            let previousChoice = try configuration.groupChoices.contents(forAppID: appID)
            try configuration.groupChoices.save(newGroup, forAppID: appID)
            undo.add("the access-group choice") { () throws(AuthError) in
                try self.configuration.groupChoices.restore(previousChoice, forAppID: appID)
            }
            // An unknown old choice is not taken for the private scope: nothing is deleted then.
            if choiceKnown, oldGroup == nil, newGroup != nil {
                try AuthError.catchingKeychain { () throws(KeychainError) in
                    try store.removeData(for: StoredUserKeys.privateUser(options))
                }
            }
        } catch {
            undo.run()
            throw error
        }
        state.withLock { state in
            state.group = newGroup
            state.choiceUnknown = false
            state.userUnread = false
            state.startupError = nil
            state.currentUser = newUser
            publish(&state)
        }
        if !keepsFollowing {
            replaceObservation(with: newObservation)
            newObservation = nil
        }
    }

    /// The user stored in `accessGroup` (`nil`: the app's private item), without changing anything
    /// (except that a user the app could not read at start-up, in its own group, becomes current).
    ///
    /// - Throws: ``AuthError``: an invalid group or keychain failure (``AuthErrorCode/keychainError``),
    ///   or a record that does not decode (``AuthErrorCode/corruptStoredUser``).
    public func getStoredUser(forAccessGroup accessGroup: String?) throws(AuthError) -> User? {
        let group = try Self.validated(accessGroup)
        if state.withLock({ $0.userUnread && !$0.choiceUnknown && $0.group == group }) {
            try transition { () throws(AuthError) in try completeStartupHoldingTransitions() }
        }
        return try Self.readRecord(configuration, in: group).map { User(record: $0, auth: self) }
    }

    // MARK: Signing in and out

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
        var record = user.snapshot
        if record.apiKey != configuration.backend.apiKey {
            let account = try await configuration.backend.lookUp(idToken: record.tokens.idToken)
            record.apply(account)
            record.apiKey = configuration.backend.apiKey
        }
        try checkTenant(of: record, from: "The user passed to updateCurrentUser")
        let adoptedRecord = record
        try await commit(adoptedRecord) { current in
            let record = adoptedRecord
            let adopted: User
            if user.auth === self || user.auth == nil {
                adopted = user
            } else if let current, current.uid == record.uid {
                adopted = current
            } else {
                return User(record: record, auth: self)
            }
            adopted.record.withLock { $0 = record }
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
        let stored = try await transitionOffPool { () throws(AuthError) in try self.readAdoptableUser(in: group) }
        if let stored, stored.isAnonymous {
            try await transitionOffPool { () throws(AuthError) in try self.switchGroupHoldingTransitions(to: group, carrying: stored) }
            return AuthDataResult(user: stored)
        }
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

    private func needsSwitch(to group: AccessGroup?) -> Bool {
        state.withLock { $0.choiceUnknown || $0.group != group }
    }

    /// Switches to `group` carrying the newly signed-in user, all or nothing.
    private func finishSignIn(_ signedIn: BackendSignIn, anonymous: Bool, switchingTo group: AccessGroup?) async throws(AuthError) -> AuthDataResult {
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

    private func signOutHoldingTransitions() throws(AuthError) {
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
    private func signOutIfCurrent(_ user: User) async throws(AuthError) {
        try await transitionOffPool { () throws(AuthError) in
            guard self.currentUser === user else { return }
            try self.signOutHoldingTransitions()
        }
    }

    // MARK: Completion-handler forms

    /// ``signInAnonymously()`` with a completion handler, called on the callback queue.
    public func signInAnonymously(completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void) {
        complete(completion) { () async throws(AuthError) in try await self.signInAnonymously() }
    }

    /// ``signIn(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func signIn(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void
    ) {
        complete(completion) { () async throws(AuthError) in try await self.signIn(withEmail: email, password: password) }
    }

    /// ``createUser(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func createUser(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void
    ) {
        complete(completion) { () async throws(AuthError) in try await self.createUser(withEmail: email, password: password) }
    }

    /// ``updateCurrentUser(_:)`` with a completion handler, called on the callback queue.
    public func updateCurrentUser(_ user: User?, completion: @escaping @Sendable (AuthError?) -> Void) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws(AuthError) in
            try await self.updateCurrentUser(user)
        }
    }

    /// Runs `body` in a task and calls `completion` with its result or error on the callback queue.
    private func complete<Result: Sendable>(
        _ completion: @escaping @Sendable (Result?, AuthError?) -> Void,
        _ body: @escaping @Sendable () async throws(AuthError) -> Result
    ) {
        let queue = configuration.callbackQueue
        Task {
            do throws(AuthError) {
                let result = try await body()
                queue.async { completion(result, nil) }
            } catch {
                queue.async { completion(nil, error) }
            }
        }
    }

    // MARK: Listeners

    /// Calls `listener` on the callback queue now, and whenever the signed-in user changes.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping Listener) -> AuthListenerHandle {
        addListener(listener, to: \.stateListeners)
    }

    /// Calls `listener` on the callback queue now, and whenever the signed-in user or their ID token changes.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping Listener) -> AuthListenerHandle {
        addListener(listener, to: \.tokenListeners)
    }

    /// Stops calling a listener added by ``addStateDidChangeListener(_:)``.
    public func removeStateDidChangeListener(_ handle: AuthListenerHandle) {
        _ = state.withLock { $0.stateListeners.removeValue(forKey: handle.id) }
    }

    /// Stops calling a listener added by ``addIDTokenDidChangeListener(_:)``.
    public func removeIDTokenDidChangeListener(_ handle: AuthListenerHandle) {
        _ = state.withLock { $0.tokenListeners.removeValue(forKey: handle.id) }
    }

    /// The current user, then every change of the signed-in user, until the stream is dropped.
    public var authStateChanges: AsyncStream<User?> {
        let (stream, continuation) = AsyncStream<User?>.makeStream()
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.streams[id] = continuation
            continuation.yield(state.currentUser)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    private func addListener(_ listener: @escaping Listener, to list: WritableKeyPath<State, [Int: Listener]>) -> AuthListenerHandle {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state[keyPath: list][id] = listener
            let user = state.currentUser
            configuration.callbackQueue.async { listener(self, user) }
            return AuthListenerHandle(id: id)
        }
    }

    /// Tells listeners about a change of the current user, by Firebase's rules: state listeners
    /// when the signed-in uid changed, token listeners when the uid or the ID token changed.
    /// Called with the state locked, so notifications are queued in the order of the changes.
    private func publish(_ state: inout State) {
        let user = state.currentUser
        let uid = user?.uid
        let token = user?.snapshot.tokens.idToken
        let uidChanged = uid != state.notifiedUID
        let tokenChanged = uidChanged || token != state.notifiedToken
        state.notifiedUID = uid
        state.notifiedToken = token
        let queue = configuration.callbackQueue
        if uidChanged {
            for (_, listener) in state.stateListeners.sorted(by: { $0.key < $1.key }) { queue.async { listener(self, user) } }
            for continuation in state.streams.values { continuation.yield(user) }
        }
        if tokenChanged {
            for (_, listener) in state.tokenListeners.sorted(by: { $0.key < $1.key }) { queue.async { listener(self, user) } }
        }
    }

    // MARK: Live sync

    /// Starts following the user item of `group` when live sync applies to it (a shared group,
    /// ``AuthConfiguration/liveSync`` on); `nil` otherwise or when the store cannot be followed.
    private func followSharedUser(in group: AccessGroup?) -> KeychainObservation? {
        guard configuration.liveSync, let group else { return nil }
        do {
            return try store.refreshOnChanges(to: StoredUserKeys.user(options, in: group), on: worker) { [weak self] in
                self?.adoptStoredUser(of: group)
            }
        } catch {
            logger.warning(
                "Live sync is off: the keychain's changes cannot be followed; other apps' changes are seen at the next launch",
                metadata: ["group": "\(group)", "error": "\(error)"])
            return nil
        }
    }

    /// Makes `observation` the one that follows the group, ending the one before.
    private func replaceObservation(with observation: KeychainObservation?) {
        let previous = groupObservation.withLock { live in
            defer { live = observation }
            return live
        }
        previous?.cancel()
    }

    /// Another app (or this one) changed the user item of `group`: reads it and, if it differs
    /// from the current user, makes it current and tells listeners by Firebase's rules. The same
    /// account is updated in place, so `User` references stay current. A deleted item signs the
    /// user out; an item that cannot be read, or holds a user of another tenant, is logged and the
    /// current user kept. A user start-up could not read becomes current once it can be read.
    private func adoptStoredUser(of group: AccessGroup) {
        transitions.withLock { _ in
            guard state.withLock({ !$0.choiceUnknown && $0.group == group }) else { return }
            let stored: StoredUserRecord?
            do throws(AuthError) {
                stored = try Self.readRecord(configuration, in: group)
                if let stored { try checkTenant(of: stored, from: "The user stored in group \(group)") }
            } catch {
                logger.warning(
                    "The shared user changed but cannot be adopted; keeping the current user",
                    metadata: ["group": "\(group)", "error": "\(error)"])
                return
            }
            state.withLock { state in
                if state.userUnread {
                    state.userUnread = false
                    state.startupError = nil
                }
                let current = state.currentUser
                switch (current, stored) {
                case (nil, nil):
                    return
                case (let current?, let stored?) where current.uid == stored.uid:
                    // Compared as stored: the record in memory has finer dates than the stored one.
                    guard current.snapshot.encoded() != stored.encoded() else { return }
                    current.record.withLock { $0 = stored }
                default:
                    state.currentUser = stored.map { User(record: $0, auth: self) }
                }
                logger.debug("Adopted a change of the shared user", metadata: ["group": "\(group)"])
                publish(&state)
            }
        }
    }

    // MARK: Keychain transitions

    private static func validated(_ accessGroup: String?) throws(AuthError) -> AccessGroup? {
        guard let accessGroup else { return nil }
        return try AuthError.catchingKeychain { () throws(KeychainError) in try AccessGroup(accessGroup) }
    }

    private func transition<Result>(_ body: () throws(AuthError) -> Result) throws(AuthError) -> Result {
        try transitions.withLock { _ throws(AuthError) in try body() }
    }

    /// Runs a transition on ``worker`` (it blocks on the keychain), never on the cooperative pool.
    private func transitionOffPool<Result: Sendable>(
        _ body: @escaping @Sendable () throws(AuthError) -> Result
    ) async throws(AuthError) -> Result {
        let result: Swift.Result<Result, AuthError> = await withCheckedContinuation { continuation in
            worker.async {
                continuation.resume(returning: Swift.Result { () throws(AuthError) in try self.transition(body) })
            }
        }
        return try result.get()
    }

    /// Saves `record` to the current group's item and makes the user `makeUser` returns (given the
    /// current user) current; on failure nothing changes. Refused while the group choice is unknown.
    @discardableResult
    private func commit(
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
    private func signedInRecord(_ signedIn: BackendSignIn, anonymous: Bool) async throws(AuthError) -> StoredUserRecord {
        let account = try await configuration.backend.lookUp(idToken: signedIn.tokens.idToken)
        var record = StoredUserRecord(
            uid: signedIn.uid, isAnonymous: anonymous, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: nil, photoURL: nil, phoneNumber: nil, providerData: [], creationDate: nil, lastSignInDate: nil,
            tenantID: options.tenantID, apiKey: configuration.backend.apiKey, appID: options.appID, tokens: signedIn.tokens)
        record.apply(account)
        return record
    }

    private func finishSignIn(_ signedIn: BackendSignIn, anonymous: Bool) async throws(AuthError) -> AuthDataResult {
        let record = try await signedInRecord(signedIn, anonymous: anonymous)
        return AuthDataResult(user: try await commit(record) { _ in User(record: record, auth: self) })
    }

    // MARK: Start-up completed late

    /// Reads again what start-up could not: the group choice, then the group's user. No-op once loaded.
    ///
    /// - Throws: ``AuthError`` when either still cannot be read; what could be read is kept.
    private func completeStartupHoldingTransitions() throws(AuthError) {
        let (choiceUnknown, userUnread, savedGroup) = state.withLock { ($0.choiceUnknown, $0.userUnread, $0.group) }
        guard choiceUnknown || userUnread else { return }
        let group = choiceUnknown ? try loadGroupChoice() : savedGroup
        if choiceUnknown {
            state.withLock { state in
                state.group = group
                state.choiceUnknown = false
            }
            replaceObservation(with: followSharedUser(in: group))
        }
        let user = try readAdoptableUser(in: group)
        state.withLock { state in
            state.userUnread = false
            state.startupError = nil
            state.currentUser = user
            publish(&state)
        }
        logger.info("Loaded the stored user that could not be read at start-up", metadata: ["group": "\(Self.describe(group))"])
    }

    /// Before a write: the group choice must be known (it says where to write); the group's user
    /// is read again if it could not be, but a write may replace an unreadable item.
    private func completeStartupForWriting() throws(AuthError) {
        do throws(AuthError) {
            try completeStartupHoldingTransitions()
        } catch where state.withLock({ $0.choiceUnknown }) {
            throw error
        } catch {
            // The group is known: the write goes there, and replaces what could not be read.
        }
    }

    private func completeStartupOffPool() async throws(AuthError) {
        guard state.withLock({ $0.choiceUnknown || $0.userUnread }) else { return }
        try await transitionOffPool { () throws(AuthError) in try self.completeStartupForWriting() }
    }

    // MARK: Stored state

    private static func describe(_ group: AccessGroup?) -> String {
        group.map { "group \($0)" } ?? "the private scope"
    }

    /// The user stored in `group`, as a new ``User`` of this app, or `nil`.
    ///
    /// - Throws: ``AuthError``: a keychain failure, a corrupt record, or a user of another tenant
    ///   (``AuthErrorCode/tenantIDMismatch``); the item is left as it is.
    private func readAdoptableUser(in group: AccessGroup?) throws(AuthError) -> User? {
        guard let record = try Self.readRecord(configuration, in: group) else { return nil }
        try checkTenant(of: record, from: "The user stored in \(Self.describe(group))")
        return User(record: record, auth: self)
    }

    /// Firebase's rule: a user becomes current only in an app of the same tenant (or both none).
    private func checkTenant(of record: StoredUserRecord, from source: String) throws(AuthError) {
        guard record.tenantID != options.tenantID else { return }
        throw AuthError(
            .tenantIDMismatch,
            "\(source) belongs to tenant \(record.tenantID ?? "none"), this app to \(options.tenantID ?? "none"); "
                + "it was left as it is. Use the same tenantID in every app of a group.")
    }

    private func save(_ record: StoredUserRecord, in group: AccessGroup?) throws(AuthError) {
        try AuthError.catchingKeychain { () throws(KeychainError) in
            try store.setData(record.encoded(), for: StoredUserKeys.user(options, in: group), label: label(of: record.uid, in: group))
        }
    }

    private func label(of uid: String, in group: AccessGroup?) -> String {
        "Firebase user \(uid) of \(group.map { "group \($0)" } ?? "app \(options.appName)")"
    }

    /// Puts back the bytes `previous` read from `key` before a step that is being undone (`nil`: deletes it).
    private func restore(_ previous: Data?, at key: KeychainKey, in group: AccessGroup?) throws(AuthError) {
        try AuthError.catchingKeychain { () throws(KeychainError) in
            if let previous {
                try store.setData(previous, for: key, label: "Firebase user of \(group.map { "group \($0)" } ?? "app \(options.appName)")")
            } else {
                try store.removeData(for: key)
            }
        }
    }

    /// The saved access-group choice; the first time, the one earlier versions kept in the keychain
    /// is moved to ``AuthConfiguration/groupChoices`` (and the keychain item removed).
    private func loadGroupChoice() throws(AuthError) -> AccessGroup? {
        let choices = configuration.groupChoices
        if case .choice(let group) = try choices.saved(forAppID: options.appID) { return group }
        let legacyKey = StoredUserKeys.legacyAccessGroupChoice(options)
        let legacy = try AuthError.catchingKeychain { () throws(KeychainError) in try store.data(for: legacyKey) }
        let group = try legacy.map { (data) throws(AuthError) -> AccessGroup in
            do throws(KeychainError) {
                return try AccessGroup(String(validating: data, as: UTF8.self) ?? "\u{FFFD}")
            } catch {
                throw AuthError(
                    .accessGroupChoiceError,
                    "The access-group choice an earlier version kept in the keychain (\(legacyKey)) is not valid: \(error). "
                        + "It was left as it is; remove it with `secret-tool clear service \(legacyKey.service) account "
                        + "\(legacyKey.account)`, or call useUserAccessGroup (keyring-auth use-group) to choose.")
            }
        }
        try choices.save(group, forAppID: options.appID)
        if legacy != nil {
            do throws(KeychainError) {
                try store.removeData(for: legacyKey)
                logger.info("Moved the access-group choice out of the keychain", metadata: ["group": "\(Self.describe(group))"])
            } catch {
                logger.warning(
                    "Moved the access-group choice out of the keychain, but the old item could not be removed; it is ignored",
                    metadata: ["error": "\(error)"])
            }
        }
        return group
    }

    private static func readRecord(_ configuration: AuthConfiguration, in group: AccessGroup?) throws(AuthError) -> StoredUserRecord? {
        let key = StoredUserKeys.user(configuration.options, in: group)
        let data = try AuthError.catchingKeychain { () throws(KeychainError) in try configuration.store.data(for: key) }
        return try data.map { (data) throws(AuthError) in try StoredUserRecord.decode(data, key: key) }
    }

    // MARK: User operations

    func refreshTokens(of user: User) async throws(AuthError) -> AuthTokens {
        let tokens: AuthTokens
        do throws(AuthError) {
            tokens = try await configuration.backend.refresh(refreshToken: user.snapshot.tokens.refreshToken)
        } catch where [.userTokenExpired, .userNotFound, .userDisabled, .invalidUserToken].contains(error.code) {
            try await signOutIfCurrent(user)
            throw error
        }
        try await updateIfCurrent(user) { $0.tokens = tokens }
        return tokens
    }

    func reload(_ user: User) async throws(AuthError) {
        let account = try await configuration.backend.lookUp(idToken: user.snapshot.tokens.idToken)
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
        try await configuration.backend.delete(idToken: user.snapshot.tokens.idToken)
        try await signOutIfCurrent(user)
    }

    /// Changes `user`'s record and, when it is the current user, saves it and tells token listeners.
    private func updateIfCurrent(_ user: User, _ change: @escaping @Sendable (inout StoredUserRecord) -> Void) async throws(AuthError) {
        guard currentUser === user else {
            user.record.withLock { change(&$0) }
            return
        }
        try await transitionOffPool { () throws(AuthError) in
            var record = user.snapshot
            change(&record)
            try self.save(record, in: self.state.withLock { $0.group })
            user.record.withLock { $0 = record }
            self.state.withLock { self.publish(&$0) }
        }
    }
}
