import KeyringAuth
import Logging
import SecretKeychain
import Testing
@testable import KeyringAuthBroker

/// The broker's registry of `Auth`s with clients that leave: a scope its app alone held is let go when the app's last
/// connection has left, and a call of a client that left first takes no hold. The broker runs here without a bus, over
/// an in-memory store (chosen for this test: no keychain is reached).
@Suite struct ClientDepartureTests {
    private static func broker() -> Broker {
        Broker(
            store: InMemoryStore(), endpoint: .production, policy: AccessPolicy(snapGrants: SnapGrants(text: "")),
            tokenRefresh: .disabled, idleTimeout: nil, logger: Logger(label: "ClientDepartureTests"))
    }

    private let scope = AuthScope(options: AuthAppOptions(apiKey: "AIza-x", appID: "1:1:linux:a", projectID: "demo"), group: nil)
    private let identity = CallerIdentity(caller: .flatpak(appID: "com.example.Notes"), sharesNetwork: false)

    @Test func aScopeHeldByAnAppThatLeftIsLetGo() async throws {
        let broker = Self.broker()
        broker.state.withLock { $0.callers[":1.1"] = identity }
        _ = try await broker.auth(for: scope, heldBy: identity.app, client: ":1.1")
        broker.release(scope, heldBy: identity.app)
        #expect(broker.state.withLock { $0.scopes[scope] } != nil, "kept while its app is connected")
        broker.peerLeft(":1.1")
        #expect(broker.state.withLock { $0.scopes[scope] } == nil, "let go once the app's last connection left")
    }

    @Test func aScopeHeldByACallInProgressIsLetGoWhenTheCallEnds() async throws {
        let broker = Self.broker()
        broker.state.withLock { $0.callers[":1.1"] = identity }
        _ = try await broker.auth(for: scope, heldBy: identity.app, client: ":1.1")
        broker.peerLeft(":1.1")
        #expect(broker.state.withLock { $0.scopes[scope] } != nil, "the call in progress holds it")
        broker.release(scope, heldBy: identity.app)
        #expect(broker.state.withLock { $0.scopes[scope] } == nil)
    }

    @Test func aClientThatLeftBeforeItsCallTakesNoHold() async throws {
        let broker = Self.broker()
        broker.peerLeft(":1.2")
        await #expect(throws: BrokerError.self) { _ = try await broker.auth(for: scope, heldBy: identity.app, client: ":1.2") }
        #expect(broker.state.withLock { $0.scopes[scope] } == nil)
    }
}
