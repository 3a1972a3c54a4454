import Dispatch
import Foundation
import Logging
import SecretKeychain
import Synchronization

/// Firebase Auth's API over a `KeychainStore`: one instance per app name, sharing the signed-in
/// user with the other apps of an access group, and (``AuthConfiguration/liveSync``) following
/// their changes while it runs.
///
/// The stored user is loaded when the instance is created, so the first ``currentUser`` read
/// already sees it. Methods that touch the keychain synchronously (``useUserAccessGroup(_:migratingCurrentUser:)``,
/// ``getStoredUser(forAccessGroup:)``, ``signOut()``) block the calling thread; the `async` ones
/// run their keychain work on a queue of their own.
public final class Auth: Sendable {
    public typealias Listener = @Sendable (Auth, User?) -> Void

    struct State {
        var currentUser: User?
        var group: AccessGroup?
        var startupError: AuthError?
        /// What start-up could not read yet; read again by the next call that needs it.
        var unread = Unread.nothing
        /// The saved access-group choice could not be read: nothing is written until it is known.
        var choiceUnknown: Bool { unread == .choiceAndUser }
        /// The current group's user could not be read at start-up.
        var userUnread: Bool { unread != .nothing }
        var stateListeners: [Int: Listener] = [:]
        var tokenListeners: [Int: Listener] = [:]
        /// ``Auth/addUserDidChangeListener(_:)``'s listeners.
        var userListeners: [Int: Listener] = [:]
        /// The iterators of ``Auth/authStateChanges`` and ``Auth/idTokenChanges``.
        var stateStreams: [Int: AsyncStream<User?>.Continuation] = [:]
        var tokenStreams: [Int: AsyncStream<User?>.Continuation] = [:]
        var nextID = 0
        var notifiedUID: String?
        var notifiedToken: String?
        /// The current user's record as last told to ``userListeners`` (as stored: `nil` for nobody).
        var notifiedRecord: Data?
        /// ``Auth/tenantID``: starts as the options' tenant.
        var tenantID: String?
        /// ``Auth/languageCode``.
        var languageCode: String?
        /// The observation of the current group's item while live sync is on; released (ending it) with the
        /// instance. Replaced by swapping it out under the lock and cancelling it after: cancelling waits for
        /// the watcher's thread, whose handler may take this lock.
        var liveSync: KeychainObservation?
        /// The scheduled refresh of the current user's token (``TokenRefreshPolicy``); replaced at each token
        /// change, cancelled with the instance.
        var scheduledRefresh: ScheduledRefresh?
    }

    /// What start-up left unread: the group choice comes first, as it says where the user is.
    enum Unread {
        case choiceAndUser, user, nothing
    }

    public let configuration: AuthConfiguration
    /// This instance's settings, as Firebase's `settings` (``AuthSettings/isAppVerificationDisabledForTesting``).
    public let settings: AuthSettings?
    /// Everything of the instance that changes, behind one lock, held for memory updates only (never
    /// across D-Bus or HTTP). Taken inside ``transitions``, never the reverse.
    let state: Mutex<State>
    /// Held across every keychain write and the state change it goes with, so that the stored
    /// item and ``currentUser`` always agree, whatever calls run concurrently. It spans the keychain
    /// calls themselves: with a locked collection and a desktop prompter, a call can wait for the
    /// person to unlock, up to the store's `unlockTimeout` (60 s by default), and every other
    /// transition of this `Auth` (another sign-in, a sign-out, a live-sync adoption) waits behind it.
    /// Reads of ``currentUser`` and listener registration take only ``state`` and never wait.
    /// Outermost lock: ``state`` is taken inside it, never the reverse.
    let transitions = Mutex(())
    /// Runs the `async` calls' keychain transitions, so that they block this queue's thread and
    /// never a thread of the cooperative pool; also runs live sync's re-reads.
    let worker = DispatchQueue(label: "KeyringAuth.Auth")

    var options: AuthAppOptions { configuration.options }
    var store: any KeychainStore { configuration.store }
    var logger: Logger { configuration.logger }

    // MARK: Instances

    private static let instances = Mutex<[String: Auth]>([:])

    /// Creates the ``Auth`` of `configuration.options.appName`, replacing any earlier one, and
    /// returns it. This is the one way to make an `Auth`: one instance per app name, as Firebase.
    ///
    /// Creating it loads the saved access-group choice and the stored user, blocking the calling
    /// thread on the keychain (bounded by the store's time limits). In a shared group with
    /// ``AuthConfiguration/liveSync`` on, it starts following the group's item. A failure is kept in
    /// ``startupError`` and logged; nothing stored is changed. When the choice is known but the
    /// group's user cannot be read (a locked keyring, say), ``currentUser`` is `nil` until the user
    /// can be read: through live sync, or by the next call that reads or writes it. Nothing is
    /// written anywhere while the choice itself cannot be read.
    @discardableResult
    public static func configure(_ configuration: AuthConfiguration) -> Auth {
        let auth = Auth(configuration: configuration)
        instances.withLock { $0[configuration.options.appName] = auth }
        return auth
    }

    /// The ``Auth`` of the default app: the one ``configure(_:)`` made for it, or, after
    /// ``FirebaseApp/configure()``, one made now with this package's defaults (as ``auth(app:)-(FirebaseApp)``).
    /// Stops the process, as Firebase's, when neither was called.
    public static func auth() -> Auth { auth(named: AuthAppOptions.defaultAppName, firebaseApp: FirebaseApp.app()) }

    /// The ``Auth`` of `app`: the one ``configure(_:)`` made for it, or one made now, on first use, from the
    /// app's options with this package's defaults (``AuthConfiguration/init(app:store:callbackQueue:logger:liveSync:groupChoices:tokenRefresh:)``):
    /// the Secret Service's default collection, live sync, the refresh ahead of expiry.
    /// Stops the process when the app's options have no ``FirebaseOptions/apiKey`` (Firebase's does too).
    public static func auth(app: FirebaseApp) -> Auth { auth(named: AuthAppOptions.appName(of: app), firebaseApp: app) }

    /// The ``Auth`` of the app named `name` (an ``AuthAppOptions/appName``); ``configure(_:)`` or
    /// ``FirebaseApp/configure(name:options:)`` must have been called for it.
    public static func auth(app name: String) -> Auth {
        auth(named: name, firebaseApp: FirebaseApp.app(name: AuthAppOptions.firebaseAppName(of: name)))
    }

    private static func auth(named name: String, firebaseApp: FirebaseApp?) -> Auth {
        let found = instances.withLock { instances -> Result<Auth, NotConfigured> in
            if let auth = instances[name] { return .success(auth) }
            guard let firebaseApp else { return .failure(NotConfigured(configured: instances.keys.sorted())) }
            // Made under the lock, so that concurrent first calls make one instance.
            let auth = Auth(configuration: AuthConfiguration(app: firebaseApp))
            instances[name] = auth
            return .success(auth)
        }
        switch found {
        case .success(let auth): return auth
        // fatalError, not preconditionFailure: an optimized build drops a precondition's message.
        case .failure(let failure): fatalError(notConfiguredMessage(app: name, configured: failure.configured))
        }
    }

    private struct NotConfigured: Error {
        let configured: [String]
    }

    /// Forgets the instance of a deleted ``FirebaseApp`` (``FirebaseApp/delete(_:)``).
    static func removeInstance(for app: FirebaseApp) {
        _ = instances.withLock { $0.removeValue(forKey: AuthAppOptions.appName(of: app)) }
    }

    /// The ``FirebaseApp`` of this instance's app name, while one is configured.
    public var app: FirebaseApp? { FirebaseApp.app(name: AuthAppOptions.firebaseAppName(of: options.appName)) }

    /// Why ``auth(app:)-(String)`` has no instance for `name`: the names that are configured, and how to reach them.
    static func notConfiguredMessage(app name: String, configured: [String]) -> String {
        let asked = "No Auth is configured for app \(String(reflecting: name))"
        guard !configured.isEmpty else {
            return asked + "; call FirebaseApp.configure() first (it reads the app's GoogleService-Info.plist), "
                + "or Auth.configure(_:) (it returns the instance)."
        }
        let names = configured.map { String(reflecting: $0) }.joined(separator: ", ")
        return asked + "; configured: \(names). Use the instance Auth.configure(_:) returned, or "
            + "Auth.auth(app: \(String(reflecting: configured[0]))). An appName names an Auth within one process; "
            + "apps are told apart by appID, so an app with one Auth leaves appName at \"[DEFAULT]\" and uses Auth.auth()."
    }

    /// An instance outside the registry, as ``configure(_:)`` makes one: for this package's tools and
    /// tests, which start several "launches" of one app in one process.
    package init(configuration: AuthConfiguration) {
        self.configuration = configuration
        let emulated = (try? (configuration.backend as? IdentityToolkitBackend)?.endpoint().emulatorHost) != nil
        self.settings = AuthSettings(appVerificationDisabledForTesting: emulated)
        self.state = Mutex(State(tenantID: configuration.options.tenantID))
        // Held while loading, so that a change reported meanwhile is applied after the load.
        transitions.withLock { _ in
            var loaded = State(unread: .choiceAndUser, tenantID: configuration.options.tenantID)
            do throws(AuthError) {
                loaded.group = try loadGroupChoice()
                loaded.unread = .user
                loaded.currentUser = try readAdoptableUser(in: loaded.group)
                loaded.unread = .nothing
            } catch {
                configuration.logger.error("Could not load the stored user", metadata: ["error": "\(error)"])
                loaded.startupError = error
            }
            loaded.notifiedUID = loaded.currentUser?.uid
            loaded.notifiedToken = loaded.currentUser?.storedRecord.tokens.idToken
            loaded.notifiedRecord = loaded.currentUser?.storedRecord.encoded()
            state.withLock { $0 = loaded }
        }
        let (group, choiceKnown) = state.withLock { ($0.group, !$0.choiceUnknown) }
        warnIfGroupCannotBeShared(group)
        // After the one read above: configure returns without waiting for live sync's connection.
        if choiceKnown { followSharedUserLater(in: group) }
        scheduleTokenRefresh(for: currentUser)
    }

    deinit {
        state.withLock { $0.scheduledRefresh?.cancel() }
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
    /// be followed (a failure to follow them is logged). ``configure(_:)`` returns once the stored user
    /// is read, and live sync starts right after, on the instance's own queue: `false` until then.
    /// A change another app makes meanwhile is adopted when it starts.
    public var isLiveSyncActive: Bool { state.withLock { $0.liveSync.map { !$0.isCancelled } ?? false } }

    /// Waits until live sync's start after ``configure(_:)`` has run (started, or found it does not apply), for
    /// this package's tools and tests that go on only once the group is followed.
    package func waitForLiveSyncStart() {
        worker.sync {}
    }

    // MARK: Identity backend

    /// Sends this app's requests to an Auth emulator at `host:port` (Firebase's `useEmulator(withHost:port:)`),
    /// for example the one `keyring-auth emulator` runs. Call it before signing in. The host is a name, an
    /// IPv4 address, or an IPv6 address with or without brackets (`::1`, `[::1]`).
    ///
    /// As Firebase's Apple SDK, it turns on ``AuthSettings/isAppVerificationDisabledForTesting``: the emulator verifies
    /// no app, so phone sign-in opens no reCAPTCHA page.
    ///
    /// As Firebase's, it does not throw. An address that is not usable is logged, and every later request
    /// fails with ``AuthErrorCode/invalidConfiguration`` saying what is wrong with it (nothing is sent to
    /// Firebase instead).
    public func useEmulator(withHost host: String, port: Int) {
        guard let backend = configuration.backend as? IdentityToolkitBackend else {
            logger.error(
                "useEmulator(withHost:port:) ignored: this Auth was configured with its own backend; configure it without one to use the emulator",
                metadata: ["backend": "\(type(of: configuration.backend))"])
            return
        }
        backend.useEmulatorOrFailRequests(host: host, port: port)
        configuration.appCheck?.useEmulator(host: host, port: port)
        settings?.isAppVerificationDisabledForTesting = true
        do throws(AuthError) {
            _ = try backend.endpoint()
        } catch {
            logger.error("useEmulator(withHost:port:) was given an unusable address; every request will fail", metadata: ["error": "\(error)"])
        }
    }
}
