import Foundation
import KeyringAuth
import SecretKeychain

// The registry of `Auth`s: one per scope its clients use, made one at a time on the registry's queue, held by the calls
// and watches of each app (``ScopeTable``), and let go of on that queue, never inside a lock nor on the main thread.
extension Broker {
    /// The scope's `Auth`, held for `app` until ``release(_:heldBy:)``; refused to a `client` that has left the bus,
    /// so that no hold is taken for an app that is gone.
    func auth(for scope: AuthScope, heldBy app: String, client: String) async throws(BrokerError) -> Auth {
        if let auth = try hold(scope, by: app, client: client) { return auth }
        return try await registryQueue.run { () throws(BrokerError) -> Auth in
            if let auth = try self.hold(scope, by: app, client: client) { return auth }
            // Released here, on the registry's queue, outside the lock: an Auth's end may take a D-Bus call.
            let released = try self.state.withLock { state throws(BrokerError) in try state.scopes.makeRoom(for: scope, by: app) }
            if released != nil { self.logger.debug("Released the least lately used scope nobody holds") }
            withExtendedLifetime(released) {}
            let auth = try self.makeAuth(for: scope)
            // A corrupt stored user is replaced by the next sign-in; anything else is tried again by the next call.
            if let error = auth.startupError, error.code != .corruptStoredUser { throw Self.brokerError(from: error) }
            try self.state.withLock { state throws(BrokerError) in
                try self.clients.admit(client)
                try state.scopes.insert(auth, for: scope, by: app)
            }
            return auth
        }
    }

    private func hold(_ scope: AuthScope, by app: String, client: String) throws(BrokerError) -> Auth? {
        try state.withLock { state throws(BrokerError) in
            try clients.admit(client)
            return try state.scopes.hold(scope, by: app)
        }
    }

    /// Ends one hold of `app` on `scope`, letting go of its `Auth` when that was the last and its apps have left.
    func release(_ scope: AuthScope, heldBy app: String) {
        letGo(state.withLock { $0.scopes.release(scope, by: app) })
    }

    /// Where an app's requests go: the emulator it names (`emulatorHost`), else the broker's own endpoint.
    func endpoint(forEmulator host: String?) throws(BrokerError) -> IdentityToolkitEndpoint {
        guard let host else { return endpoint }
        do throws(AuthError) { return try .emulator(hostAndPort: host) } catch { throw Self.brokerError(from: error) }
    }

    /// A new `Auth` of `scope`: the scope's own, over the keychain, or a scratch one in memory (`scratch`), which
    /// signs a held sign-in's user in without storing it anywhere.
    func makeAuth(for scope: AuthScope, scratch: Bool = false) throws(BrokerError) -> Auth {
        let endpoint = try endpoint(forEmulator: scope.emulatorHost)
        let backend = IdentityToolkitBackend(
            apiKey: scope.options.apiKey, appID: scope.options.appID, endpoint: endpoint, requestTimeout: .seconds(15), logger: logger)
        let auth = Auth(configuration: AuthConfiguration(
            options: scope.options, store: scratch ? InMemoryStore() : store, backend: backend, callbackQueue: listenerQueue, logger: logger,
            liveSync: !scratch && scope.group != nil, groupChoices: .pinned(to: scope.group, forAppID: scope.options.appID),
            tokenRefresh: scratch ? .disabled : tokenRefresh))
        if endpoint.emulatorHost != nil, Self.emulatorVerifiesApps { auth.settings?.isAppVerificationDisabledForTesting = false }
        return auth
    }

    /// For tests against the emulator's stand-in reCAPTCHA only: with `KEYRING_AUTH_EMULATOR_VERIFIES_APPS=1` in the
    /// broker's environment, its `Auth`s on an emulator keep app verification on (the phone verification page opens),
    /// as they would against Firebase. Without it, or for any other backend, nothing changes.
    static let emulatorVerifiesApps = ProcessInfo.processInfo.environment["KEYRING_AUTH_EMULATOR_VERIFIES_APPS"] == "1"

    /// Lets go of `Auth`s the scope table released, on the registry's queue, outside any lock: an Auth's end may take a
    /// D-Bus call.
    func letGo(_ released: [Auth]) {
        guard !released.isEmpty else { return }
        registryQueue.async { withExtendedLifetime(released) {} }
    }

    func letGo(_ released: Auth?) { letGo(released.map { [$0] } ?? []) }

    /// Lets go of steps that ended (a held sign-in's scratch `Auth` among them) on the registry's queue.
    func letGo(_ ended: [PendingSteps.Step]) {
        guard !ended.isEmpty else { return }
        registryQueue.async { withExtendedLifetime(ended) {} }
    }
}
