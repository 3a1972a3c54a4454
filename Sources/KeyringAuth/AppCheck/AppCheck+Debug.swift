import Foundation
import SecretKeychain

extension AppCheck {
    /// An App Check of the debug provider for an app known by its options alone (no `FirebaseApp`): the CLI's and the
    /// benchmarks'. Exchanges `debugToken` at the emulator `environment`'s `FIREBASE_AUTH_EMULATOR_HOST` names, else at
    /// Firebase; keeps the token in `store` under the options' app name; no refresh ahead of expiry (short-lived processes).
    package static func debug(
        options: AuthAppOptions, debugToken: String, store: any KeychainStore,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AppCheck {
        let exchange = AppCheckExchange(
            base: AppCheckExchange.base(environment: environment), apiKey: options.apiKey, projectID: options.projectID,
            appID: options.appID, timeout: .seconds(30), transport: CurlTransport())
        let provider = AppCheckDebugProvider(exchange: exchange, debugToken: debugToken) { store }
        let storage = AppCheckTokenStorage(
            store: store, appName: options.appName, projectID: options.projectID, appID: options.appID, group: nil)
        return AppCheck(
            appName: options.appName, provider: provider, storage: storage, runtimeDirectory: environment["XDG_RUNTIME_DIR"]) { false }
    }
}
