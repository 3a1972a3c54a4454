import Foundation
import Logging
import SecretKeychain

extension AppCheck {
    /// An App Check of the debug provider for an app known by its options alone (no `FirebaseApp`): the CLI's and the
    /// benchmarks'. Exchanges `debugToken` at the emulator `endpoint` names (the CLI's `--emulator`), else at the one
    /// `environment`'s `FIREBASE_AUTH_EMULATOR_HOST` names, else at Firebase; keeps the token in `store` under the
    /// options' Firebase app, where the app's Swift processes find it; no refresh ahead of expiry (short-lived processes).
    package static func debug(
        options: AuthAppOptions, debugToken: String, store: any KeychainStore,
        environment: [String: String] = ProcessInfo.processInfo.environment, endpoint: IdentityToolkitEndpoint? = nil,
        logger: Logger = Logger(label: "KeyringAuth.AppCheck")
    ) -> AppCheck {
        let base = endpoint.map(AppCheckExchange.base(endpoint:)) ?? AppCheckExchange.base(environment: environment)
        let exchange = AppCheckExchange(
            base: base, apiKey: options.apiKey, projectID: options.projectID, appID: options.appID, timeout: .seconds(30),
            transport: CurlTransport())
        let provider = AppCheckDebugProvider(exchange: exchange, debugToken: debugToken) { store }
        // The default app's item is named as `AppCheck.appCheck(app:)` names it: `FirebaseApp:__FIRAPP_DEFAULT`.
        let appName = AuthAppOptions.firebaseAppName(of: options.appName)
        let storage = AppCheckTokenStorage(store: store, appName: appName, projectID: options.projectID, appID: options.appID, group: nil)
        return AppCheck(
            appName: appName, provider: provider, storage: storage, logger: logger, runtimeDirectory: environment["XDG_RUNTIME_DIR"]
        ) { false }
    }
}
