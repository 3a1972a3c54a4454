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

    /// Creates an instance and loads the stored access-group choice and user (blocking). In a
    /// shared group with ``AuthConfiguration/liveSync`` on, it starts following the group's item.
    /// A failure is kept in ``startupError`` and logged; nothing stored is changed.
    public init(configuration: AuthConfiguration) {
        self.configuration = configuration
        self.state = Mutex(State())
        // Held while loading, so that a change reported meanwhile is applied after the load.
        transitions.withLock { _ in
            var loaded = State()
            do throws(AuthError) {
                loaded.group = try Self.readGroupChoice(configuration)
                // Followed before the read, so that no change falls between the two.
                groupObservation.withLock { $0 = followSharedUser(in: loaded.group) }
                if let record = try Self.readRecord(configuration, in: loaded.group) {
                    loaded.currentUser = User(record: record, auth: self)
                }
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

    /// Why loading the stored user failed at start-up, if it did.
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
    /// - Throws: ``AuthError``; on failure nothing has changed.
    public func useUserAccessGroup(_ accessGroup: String?, migratingCurrentUser: Bool = false) throws(AuthError) {
        let newGroup = try Self.validated(accessGroup)
        try transition { () throws(AuthError) in
            let (oldGroup, current) = state.withLock { ($0.group, $0.currentUser) }
            // The new group is followed before it is read, so that no change falls between the two.
            let keepsFollowing = newGroup == oldGroup && isLiveSyncActive
            var newObservation = keepsFollowing ? nil : followSharedUser(in: newGroup)
            defer { newObservation?.cancel() }
            let leavingPrivateScope = oldGroup == nil && newGroup != nil
            let newUser: User?
            if migratingCurrentUser, leavingPrivateScope, let current {
                try save(current.snapshot, in: newGroup)
                newUser = current
            } else {
                newUser = try Self.readRecord(configuration, in: newGroup).map { User(record: $0, auth: self) }
            }
            try saveGroupChoice(newGroup)
            if leavingPrivateScope {
                do {
                    try store.removeData(for: StoredUserKeys.privateUser(options))
                } catch {
                    logger.warning("Could not delete the private user item", metadata: ["error": "\(error)"])
                }
            }
            state.withLock { state in
                state.group = newGroup
                state.currentUser = newUser
                publish(&state)
            }
            if !keepsFollowing {
                let previous = groupObservation.withLock { live in
                    defer { live = newObservation }
                    return live
                }
                newObservation = nil
                previous?.cancel()
            }
        }
    }

    /// The user stored in `accessGroup` (`nil`: the app's private item), without changing anything.
    ///
    /// - Throws: ``AuthError``: an invalid group or keychain failure (``AuthErrorCode/keychainError``),
    ///   or a record that does not decode (``AuthErrorCode/corruptStoredUser``).
    public func getStoredUser(forAccessGroup accessGroup: String?) throws(AuthError) -> User? {
        let group = try Self.validated(accessGroup)
        return try Self.readRecord(configuration, in: group).map { User(record: $0, auth: self) }
    }

    // MARK: Signing in and out

    /// Makes `user` the current user and saves it to the current group's item. A user signed in
    /// with another API key is first looked up through this app's backend.
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
        guard record.tenantID == options.tenantID else {
            throw AuthError(
                .tenantIDMismatch,
                "The user belongs to tenant \(record.tenantID ?? "none"), this app to \(options.tenantID ?? "none").")
        }
        let adopted = User(record: record, auth: self)
        try await commit(adopted)
    }

    /// Signs in anonymously; returns the current user when it already is anonymous.
    ///
    /// - Throws: ``AuthError``; when saving fails the call fails and ``currentUser`` is unchanged.
    public func signInAnonymously() async throws(AuthError) -> AuthDataResult {
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

    /// Signs the user out of every app of the current group: deletes the group's stored item.
    /// Does nothing when no one is signed in.
    ///
    /// - Throws: ``AuthError``; when the delete fails, the user stays signed in.
    public func signOut() throws(AuthError) {
        try transition { () throws(AuthError) in try signOutHoldingTransitions() }
    }

    private func signOutHoldingTransitions() throws(AuthError) {
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
            let observation = try store.refreshOnChanges(to: StoredUserKeys.user(options, in: group), on: worker) { [weak self] in
                self?.adoptStoredUser(of: group)
            }
            observation.whenEnded { [logger] reason in
                logger.warning(
                    "Live sync stopped: the keychain's changes can no longer be followed; other apps' changes are seen at the next launch",
                    metadata: ["group": "\(group)", "error": "\(reason)"])
            }
            return observation
        } catch {
            logger.warning(
                "Live sync is off: the keychain's changes cannot be followed; other apps' changes are seen at the next launch",
                metadata: ["group": "\(group)", "error": "\(error)"])
            return nil
        }
    }

    /// Another app (or this one) changed the user item of `group`: reads it and, if it differs
    /// from the current user, makes it current and tells listeners by Firebase's rules. The same
    /// account is updated in place, so `User` references stay current. A deleted item signs the
    /// user out; an item that cannot be read is logged and the current user kept.
    private func adoptStoredUser(of group: AccessGroup) {
        transitions.withLock { _ in
            guard state.withLock({ $0.group }) == group else { return }
            let stored: StoredUserRecord?
            do throws(AuthError) {
                stored = try Self.readRecord(configuration, in: group)
            } catch {
                logger.warning(
                    "The shared user changed but cannot be read; keeping the current user",
                    metadata: ["group": "\(group)", "error": "\(error)"])
                return
            }
            state.withLock { state in
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

    /// Saves `user` to the current group's item and makes it current; on failure nothing changes.
    private func commit(_ user: User) async throws(AuthError) {
        try await transitionOffPool { () throws(AuthError) in
            let group = self.state.withLock { $0.group }
            try self.save(user.snapshot, in: group)
            self.state.withLock { state in
                state.currentUser = user
                self.publish(&state)
            }
        }
    }

    private func finishSignIn(_ signedIn: BackendSignIn, anonymous: Bool) async throws(AuthError) -> AuthDataResult {
        let account = try await configuration.backend.lookUp(idToken: signedIn.tokens.idToken)
        var record = StoredUserRecord(
            uid: signedIn.uid, isAnonymous: anonymous, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: nil, photoURL: nil, phoneNumber: nil, providerData: [], creationDate: nil, lastSignInDate: nil,
            tenantID: options.tenantID, apiKey: configuration.backend.apiKey, appID: options.appID, tokens: signedIn.tokens)
        record.apply(account)
        let user = User(record: record, auth: self)
        try await commit(user)
        return AuthDataResult(user: user)
    }

    private func save(_ record: StoredUserRecord, in group: AccessGroup?) throws(AuthError) {
        let key = StoredUserKeys.user(options, in: group)
        let label = "Firebase user \(record.uid) of \(group.map { "group \($0)" } ?? "app \(options.appName)")"
        try AuthError.catchingKeychain { () throws(KeychainError) in
            try store.setData(record.encoded(), for: key, label: label)
        }
    }

    private func saveGroupChoice(_ group: AccessGroup?) throws(AuthError) {
        let key = StoredUserKeys.accessGroupChoice(options)
        try AuthError.catchingKeychain { () throws(KeychainError) in
            if let group {
                try store.setData(Data(group.rawValue.utf8), for: key, label: "Firebase access group of app \(options.appName)")
            } else {
                try store.removeData(for: key)
            }
        }
    }

    private static func readGroupChoice(_ configuration: AuthConfiguration) throws(AuthError) -> AccessGroup? {
        let key = StoredUserKeys.accessGroupChoice(configuration.options)
        return try AuthError.catchingKeychain { () throws(KeychainError) in
            guard let data = try configuration.store.data(for: key) else { return nil }
            return try AccessGroup(String(decoding: data, as: UTF8.self))
        }
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
