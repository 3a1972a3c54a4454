import Foundation
import KeyringAuth
import SecretKeychain

/// Two apps of one access group, as in the reference document: different names and app IDs,
/// the same API key, one keychain.
package struct TwoApps: Sendable {
    package static let group = "TEAMID.com.example.group1"
    package let store: any KeychainStore
    package let backend: FakeBackend
    /// Makes the app IDs (and so the private items) unique, for tests sharing one keyring.
    package let namespace: String
    /// Where the apps' group choices are kept: beside a ``SecretServiceStore`` the standard files
    /// (under the harness's throwaway `XDG_STATE_HOME`), otherwise in memory. Shared by every launch.
    package let groupChoices: AccessGroupChoices

    package init(store: any KeychainStore = InMemoryStore(), backend: FakeBackend = FakeBackend(), namespace: String = "") {
        self.store = store
        self.backend = backend
        self.namespace = namespace
        self.groupChoices = store is SecretServiceStore ? .standard() : .inMemory()
    }

    /// Two apps in their own corner of a shared keyring: a unique API key and unique app IDs.
    package static func isolated(store: any KeychainStore) -> TwoApps {
        let id = String(UUID().uuidString.prefix(8))
        return TwoApps(store: store, backend: FakeBackend(apiKey: "AIza-\(id)"), namespace: id)
    }

    package func options(_ name: String) -> AuthAppOptions {
        AuthAppOptions(appName: name, apiKey: backend.apiKey, appID: "1:42:linux:\(name)\(namespace)", projectID: "demo")
    }

    package func configuration(_ name: String, store: (any KeychainStore)? = nil) -> AuthConfiguration {
        AuthConfiguration(options: options(name), store: store ?? self.store, backend: backend, groupChoices: groupChoices)
    }

    /// A fresh start of app `name`: a new instance that loads what is stored.
    package func launch(_ name: String, liveSync: Bool = true) -> Auth {
        var configuration = configuration(name)
        configuration.liveSync = liveSync
        return Auth(configuration: configuration)
    }
}

