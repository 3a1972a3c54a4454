import Dispatch
import Logging
import SecretKeychain

/// Everything an ``Auth`` needs: who the app is, where users are stored, whom it signs in with.
public struct AuthConfiguration: Sendable {
    public var options: AuthAppOptions
    /// Where users are stored: the Secret Service, or in a sandbox that cannot reach it the portal keyring and the
    /// broker (`SandboxStore.automatic(sandbox:secretService:)`), unless told otherwise.
    public var store: any KeychainStore
    /// The identity service: Firebase's Identity Toolkit, or the emulator that `FIREBASE_AUTH_EMULATOR_HOST`
    /// or ``Auth/useEmulator(withHost:port:)`` names. The package's own tests and commands may give another
    /// (`init(options:store:backend:callbackQueue:logger:liveSync:groupChoices:tokenRefresh:)`).
    package var backend: any AuthBackend
    /// Where listeners and completion handlers are called, in order.
    public var callbackQueue: DispatchQueue
    /// Where ``Auth`` logs; it never logs a token.
    public var logger: Logger
    /// Whether an ``Auth`` in an access group follows the other apps' changes to the shared user as
    /// they happen (sign-in, token refresh, sign-out), instead of at its next launch. On by default;
    /// turn it off for short-lived processes that never wait for another app.
    public var liveSync: Bool
    /// Where the app's access-group choice is remembered across launches (outside the keychain,
    /// as Firebase keeps it in `UserDefaults`).
    public var groupChoices: AccessGroupChoices
    /// Whether and when a running `Auth` refreshes its user's ID token ahead of expiry (on by default,
    /// five to eight minutes before; about one refresh per group of running apps).
    public var tokenRefresh: TokenRefreshPolicy
    /// The App Check whose token every request carries (`X-Firebase-AppCheck`): by default the app's
    /// (`AppCheck.appCheck(app:)` of the `FirebaseApp` of the options' app name), `nil` when no provider factory is set.
    public var appCheck: AppCheck?

    /// Everything an ``Auth`` needs for a ``FirebaseApp`` (its options as ``AuthAppOptions/init(app:)``
    /// takes them), with the same defaults as ``init(options:store:callbackQueue:logger:liveSync:groupChoices:tokenRefresh:)``.
    /// Pass it to ``Auth/configure(_:)`` before the first `Auth.auth()` to choose what is this package's own:
    ///
    /// ```swift
    /// FirebaseApp.configure()
    /// Auth.configure(AuthConfiguration(app: FirebaseApp.app()!, liveSync: false))   // before the first Auth.auth()
    /// ```
    ///
    /// Stops the process when the app's options have no API key (as Firebase's `Auth` does); to handle
    /// that, use ``AuthAppOptions/init(app:)``, which throws, and the other initializer.
    public init(
        app: FirebaseApp, store: (any KeychainStore)? = nil,
        callbackQueue: DispatchQueue = DispatchQueue(label: "KeyringAuth.callbacks"),
        logger: Logger = Logger(label: "KeyringAuth"), liveSync: Bool = true, groupChoices: AccessGroupChoices? = nil,
        tokenRefresh: TokenRefreshPolicy = .standard
    ) {
        let options: AuthAppOptions
        do throws(AuthAppOptions.LoadError) {
            options = try AuthAppOptions(app: app)
        } catch {
            fatalError(error.description)
        }
        self.init(
            options: options, store: store, callbackQueue: callbackQueue, logger: logger, liveSync: liveSync,
            groupChoices: groupChoices, tokenRefresh: tokenRefresh)
    }

    /// Everything an ``Auth`` needs, with defaults for all but who the app is.
    ///
    /// Requests go to Firebase's Identity Toolkit with the options' API key, or to the emulator named by
    /// `FIREBASE_AUTH_EMULATOR_HOST` when that is set (or later by ``Auth/useEmulator(withHost:port:)``).
    ///
    /// - Parameters:
    ///   - options: Who the app is to Firebase (API key, app ID, project, app name, tenant).
    ///   - store: `nil` for the store `SandboxStore.automatic(sandbox:secretService:)` chooses, logging to `logger`: a
    ///     `SecretServiceStore` on the default collection, or inside a sandbox that cannot reach the Secret Service, the
    ///     app's portal keyring for its own user and the broker for its access groups.
    ///   - groupChoices: `nil` for ``AccessGroupChoices/standard()`` (a file under `$XDG_STATE_HOME`),
    ///     or, with an `InMemoryStore`, choices kept in memory with this configuration.
    ///   - callbackQueue: Where listeners and completion handlers run, in order (default: a private
    ///     serial queue; pass `.main` for a GUI app whose main thread runs the dispatch main queue, as a
    ///     GTK app's does after `GLibMainQueue.attach()`).
    ///   - logger: Where `Auth` and the default store log; they never log a token.
    ///   - liveSync: Whether to follow the other apps' changes to the group's user while running.
    ///   - tokenRefresh: When to refresh the user's ID token ahead of expiry while running.
    public init(
        options: AuthAppOptions, store: (any KeychainStore)? = nil,
        callbackQueue: DispatchQueue = DispatchQueue(label: "KeyringAuth.callbacks"),
        logger: Logger = Logger(label: "KeyringAuth"), liveSync: Bool = true, groupChoices: AccessGroupChoices? = nil,
        tokenRefresh: TokenRefreshPolicy = .standard
    ) {
        self.init(
            options: options, store: store, backend: IdentityToolkitBackend(apiKey: options.apiKey, appID: options.appID, logger: logger),
            callbackQueue: callbackQueue, logger: logger, liveSync: liveSync, groupChoices: groupChoices, tokenRefresh: tokenRefresh)
    }

    /// The same with the identity service `backend`: for the package's own tests, commands and broker (a stand-in,
    /// or an `IdentityToolkitBackend` with an endpoint or time limit of their own).
    package init(
        options: AuthAppOptions, store: (any KeychainStore)? = nil, backend: any AuthBackend,
        callbackQueue: DispatchQueue = DispatchQueue(label: "KeyringAuth.callbacks"),
        logger: Logger = Logger(label: "KeyringAuth"), liveSync: Bool = true, groupChoices: AccessGroupChoices? = nil,
        tokenRefresh: TokenRefreshPolicy = .standard
    ) {
        let store = store ?? SandboxStore.automatic(secretService: .init(logger: logger))
        self.options = options
        self.store = store
        self.groupChoices = groupChoices ?? (store is InMemoryStore ? .inMemory() : .standard())
        self.backend = backend
        self.callbackQueue = callbackQueue
        self.logger = logger
        self.liveSync = liveSync
        self.tokenRefresh = tokenRefresh
        self.appCheck = FirebaseApp.app(name: AuthAppOptions.firebaseAppName(of: options.appName)).flatMap(AppCheck.appCheck(app:))
    }
}
