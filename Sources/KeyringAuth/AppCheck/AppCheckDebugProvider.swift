import Foundation
import Logging
import SecretKeychain
import Synchronization
import SystemSupport

/// App Check's debug provider, as Firebase's `AppCheckDebugProvider`: exchanges a debug secret registered in the
/// Firebase console for tokens. For development and CI; a shipped app's tokens come from a custom provider.
///
/// The secret is the factory's (``AppCheckDebugProviderFactory/init(debugToken:)``), else the environment's
/// `AppCheckDebugToken`, `FIRAAppCheckDebugToken` (Apple's SDK) or `APP_CHECK_DEBUG_TOKEN` (the C++ SDK's), else
/// ``localDebugToken()``. It is a secret: it goes in the exchange's body only, never into a log or message. With
/// `FIREBASE_AUTH_EMULATOR_HOST` set, the exchange goes to that emulator, which stands in for App Check.
public final class AppCheckDebugProvider: AppCheckProvider {
    /// The environment variables read for the secret, first found first.
    package static let variables = ["AppCheckDebugToken", "FIRAAppCheckDebugToken", "APP_CHECK_DEBUG_TOKEN"]
    /// Where ``localDebugToken()`` keeps the secret it made: the keyring, under the app's Firebase app ID.
    static let localTokenService = "com.google.app_check_core.debug_token"

    private let configured: String?
    private let exchangeChoice: Mutex<AppCheckExchange>
    private var exchange: AppCheckExchange { exchangeChoice.withLock { $0 } }
    private let store: @Sendable () -> any KeychainStore
    private let local = Mutex<String?>(nil)

    /// The provider of `app`, or `nil` when its options lack an API key, project ID or Google app ID (each exchange
    /// names all three).
    public convenience init?(app: FirebaseApp) {
        self.init(app: app, debugToken: nil)
    }

    convenience init?(app: FirebaseApp, debugToken: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let options = app.options
        guard let apiKey = options.apiKey, !apiKey.isEmpty, let projectID = options.projectID, !projectID.isEmpty,
            !options.googleAppID.isEmpty
        else { return nil }
        let exchange = AppCheckExchange(
            base: AppCheckExchange.base(environment: environment), apiKey: apiKey, projectID: projectID, appID: options.googleAppID,
            timeout: .seconds(30), transport: CurlTransport())
        let secret = debugToken ?? Self.variables.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        self.init(exchange: exchange, debugToken: secret) { SandboxStore.automatic() }
    }

    init(exchange: AppCheckExchange, debugToken: String?, store: @escaping @Sendable () -> any KeychainStore) {
        self.exchangeChoice = Mutex(exchange)
        self.configured = debugToken
        self.store = store
    }

    /// Exchanges at the emulator at `host:port` from now on (``Auth/useEmulator(withHost:port:)`` of the app's Auth).
    func useEmulator(host: String, port: Int) {
        guard let endpoint = try? IdentityToolkitEndpoint.emulator(host: host, port: port) else { return }
        exchangeChoice.withLock { $0.base = AppCheckExchange.base(endpoint: endpoint) }
    }

    /// The secret the exchanges use: the one given or in the environment, else ``localDebugToken()``.
    public func currentDebugToken() -> String {
        configured ?? localDebugToken()
    }

    /// This app's own secret, made once (a UUID, as Firebase's) and kept in the keyring, for a developer to
    /// register in the Firebase console. Reads the keyring (and may write it): call it off the main thread. When the
    /// keyring cannot keep it, the secret lasts as long as the process.
    public func localDebugToken() -> String {
        local.withLock { local in
            if let local { return local }
            let key = KeychainKey(service: Self.localTokenService, account: exchange.appID)
            let store = store()
            if let data = try? store.data(for: key), data.count <= 64, let stored = String(data: data, encoding: .utf8), !stored.isEmpty {
                local = stored
                return stored
            }
            let made = UUID().uuidString
            try? store.setData(Data(made.utf8), for: key, label: "App Check debug secret of \(exchange.appID)")
            local = made
            return made
        }
    }

    public func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        fetch(limitedUse: false, completion)
    }

    public func getLimitedUseToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        fetch(limitedUse: true, completion)
    }

    private func fetch(limitedUse: Bool, _ completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        Task {
            do throws(AppCheckError) {
                let secret = try await currentDebugTokenOffPool()
                completion(try await self.exchange.exchange(debugToken: secret, limitedUse: limitedUse), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// ``currentDebugToken()``, whose keyring read runs on a thread of its own, off the cooperative pool.
    private func currentDebugTokenOffPool() async throws(AppCheckError) -> String {
        if let configured { return configured }
        do {
            return try await OwnThread.run(name: "KeyringAuth.appCheckDebugToken") { self.localDebugToken() }
        } catch {
            throw AppCheckError(.unknown, "No thread could be started to read the debug secret from the keyring (\(error)).")
        }
    }
}
