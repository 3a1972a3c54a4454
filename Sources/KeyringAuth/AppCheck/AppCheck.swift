import Dispatch
import Foundation
import Logging
import SecretKeychain
import Synchronization

/// App Check for a Firebase app, as Firebase's `AppCheck`: tokens from the app's ``AppCheckProvider`` that prove
/// requests come from the app. Once a provider factory is set, every request of the app's ``Auth`` carries one in
/// `X-Firebase-AppCheck`, as Firebase's SDKs send it.
///
/// ```swift
/// AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory())   // before FirebaseApp.configure()
/// FirebaseApp.configure()
/// let token = try await AppCheck.appCheck().token(forcingRefresh: false)
/// ```
///
/// A token is kept in the keyring, so that the app's processes share it (one exchange for all that start within its
/// lifetime), and refreshed ahead of expiry (halfway through its life plus five minutes) while
/// ``isTokenAutoRefreshEnabled``, failures retried after 30 s, doubling up to 16 min.
public final class AppCheck: Sendable, Hashable {
    private static let factory = Mutex<(any AppCheckProviderFactory)?>(nil)
    private static let instances = Mutex<[String: AppCheck]>([:])

    /// The app's name (`FirebaseApp.name`).
    let appName: String
    let provider: any AppCheckProvider
    let storage: AppCheckTokenStorage
    let logger: Logger
    /// Where completion handlers and notifications go, in order.
    let queue: DispatchQueue
    let now: @Sendable () -> Date
    /// Where the exchange lock's file is made (`$XDG_RUNTIME_DIR`); `nil`: no lock among processes.
    let runtimeDirectory: String?
    private let dataCollection: @Sendable () -> Bool
    let state = Mutex(State())

    struct State {
        /// The token this process uses, while fresh.
        var token: AppCheckToken?
        var running: (id: Int, task: Task<Result<AppCheckToken, AppCheckError>, Never>)?
        var nextID = 0
        var autoRefresh: Bool?
        var scheduled: ScheduledAppCheckRefresh?
        /// Failed refreshes in a row.
        var failures = 0
    }

    // MARK: Instances

    /// Sets the factory of every app's provider, as Firebase's: before `FirebaseApp.configure()` (an app's
    /// ``AppCheck`` takes the factory set when it is first asked for). `nil` turns App Check off for apps not yet asked.
    public static func setAppCheckProviderFactory(_ factory: (any AppCheckProviderFactory)?) {
        self.factory.withLock { $0 = factory }
    }

    /// The default app's App Check. Stops the process, as Firebase's, when the default app is not configured or no
    /// provider factory is set.
    public static func appCheck() -> AppCheck {
        guard let app = FirebaseApp.app() else {
            fatalError("AppCheck.appCheck(): no default FirebaseApp; call FirebaseApp.configure() first.")
        }
        guard let appCheck = appCheck(app: app) else {
            fatalError("AppCheck.appCheck(): no App Check provider for the default app; call "
                + "AppCheck.setAppCheckProviderFactory(_:) before FirebaseApp.configure(), with a factory that makes one for its options.")
        }
        return appCheck
    }

    /// `app`'s App Check, made on first use with the factory set then; `nil` when no factory is set or it makes no
    /// provider for the app.
    public static func appCheck(app: FirebaseApp) -> AppCheck? {
        if let made = instances.withLock({ $0[app.name] }) { return made }
        // The factory is the app's code: called outside the registry's lock, so that it may ask for an App Check itself.
        guard let provider = factory.withLock({ $0 })?.createProvider(with: app) else { return nil }
        let options = app.options
        let group = options.appGroupID.flatMap { try? AccessGroup($0) }
        let storage = AppCheckTokenStorage(
            store: SandboxStore.automatic(), appName: app.name, projectID: options.projectID ?? "", appID: options.googleAppID, group: group)
        let candidate = AppCheck(appName: app.name, provider: provider, storage: storage) { [weak app] in
            app?.isDataCollectionDefaultEnabled ?? false
        }
        // Two first calls at once: the first stored is everyone's.
        let (made, isNew) = instances.withLock { instances in
            if let made = instances[app.name] { return (made, false) }
            instances[app.name] = candidate
            return (candidate, true)
        }
        if isNew { made.startAutoRefresh() }
        return made
    }

    /// Forgets the instance of a deleted `FirebaseApp`.
    static func removeInstance(for app: FirebaseApp) {
        let removed = instances.withLock { $0.removeValue(forKey: app.name) }
        removed?.stopRefreshing()
    }

    /// An instance outside the registry: for the package's tests, with their own store and clock.
    package init(
        appName: String, provider: any AppCheckProvider, storage: AppCheckTokenStorage,
        logger: Logger = Logger(label: "KeyringAuth.AppCheck"), now: @escaping @Sendable () -> Date = { Date() },
        runtimeDirectory: String? = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"],
        dataCollection: @escaping @Sendable () -> Bool
    ) {
        self.runtimeDirectory = runtimeDirectory
        self.appName = appName
        self.provider = provider
        self.storage = storage
        self.logger = logger
        self.now = now
        self.dataCollection = dataCollection
        self.queue = DispatchQueue(label: "KeyringAuth.appCheck")
    }

    public static func == (lhs: AppCheck, rhs: AppCheck) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Tokens

    /// A token: this process's while it has five minutes left, else the keyring's (another process's) while it has,
    /// else a new one from the provider; with `forcingRefresh`, a new one. Concurrent calls share one fetch.
    ///
    /// - Throws: ``AppCheckError`` when the provider fails.
    public func token(forcingRefresh: Bool) async throws -> AppCheckToken {
        try await obtain(forcingRefresh ? .force : .ifStale).get()
    }

    /// ``token(forcingRefresh:)``, its result handed to `completion` on App Check's own serial queue.
    public func token(forcingRefresh: Bool, completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        Task {
            let result = await obtain(forcingRefresh ? .force : .ifStale)
            queue.async { completion(try? result.get(), result.failure) }
        }
    }

    /// A token for one use (replay protection), from the provider each time: not kept, not shared.
    ///
    /// - Throws: ``AppCheckError`` when the provider fails.
    public func limitedUseToken() async throws -> AppCheckToken {
        try await fetchFromProvider(limitedUse: true).get()
    }

    /// ``limitedUseToken()``, its result handed to `completion` on App Check's own serial queue.
    public func limitedUseToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        Task {
            let result = await fetchFromProvider(limitedUse: true)
            queue.async { completion(try? result.get(), result.failure) }
        }
    }

    /// Whether the token is refreshed ahead of expiry while the app runs; by default the app's
    /// `isDataCollectionDefaultEnabled`, as Firebase's. Kept for this process.
    public var isTokenAutoRefreshEnabled: Bool {
        get { state.withLock { $0.autoRefresh } ?? dataCollection() }
        set {
            state.withLock { $0.autoRefresh = newValue }
            if newValue { startAutoRefresh() } else { stopRefreshing() }
        }
    }

    // MARK: For Auth

    /// Has a debug provider exchange at the emulator `Auth/useEmulator(withHost:port:)` names.
    func useEmulator(host: String, port: Int) {
        (provider as? AppCheckDebugProvider)?.useEmulator(host: host, port: port)
    }

    /// The base64 of `{"error":"UNKNOWN_ERROR"}`: what a request carries when the provider failed, as Firebase's
    /// SDKs send it.
    package static let placeholderToken = "eyJlcnJvciI6IlVOS05PV05fRVJST1IifQ=="

    /// The token an Auth request carries: the current one, or the placeholder when none comes within `limit`.
    package func tokenForAuthRequest(limit: Duration = .seconds(15)) async -> String {
        if let token = state.withLock({ $0.token }), AppCheckRefreshSchedule.isFresh(token, at: now()) { return token.token }
        let outcome = await AppCheckRace.first(within: limit) { await self.obtain(.ifStale) }
        switch outcome {
        case .success(let token)?: return token.token
        case .failure(let error)?:
            logger.warning("No App Check token; the request carries the placeholder", metadata: ["error": "\(error)"])
        case nil:
            logger.warning("No App Check token within \(limit); the request carries the placeholder")
        }
        return Self.placeholderToken
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
