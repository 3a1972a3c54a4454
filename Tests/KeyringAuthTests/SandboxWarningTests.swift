import SecretKeychain
import Testing

@testable import KeyringAuth

/// The warning `Auth` logs when an access group is used in a sandbox that cannot reach the Secret Service.
@Suite struct SandboxWarningTests {
    static let group = try! AccessGroup("TEAMID.com.example.shared")
    // Not connected: the reachability is given, so no bus is touched.
    static let secretService = SecretServiceStore()

    @Test func aGroupInAClosedSandboxIsWarnedAboutWithTheWayToShare() throws {
        let flatpak = try #require(Auth.sandboxWarning(
            for: Self.group, store: Self.secretService, sandbox: .flatpak(appID: "org.example.App"), reachable: { _ in false }))
        #expect(flatpak.contains("TEAMID.com.example.shared cannot be shared") && flatpak.contains("Flatpak (org.example.App)"))
        #expect(flatpak.contains("--talk-name=io.github.keyringauth.Broker1") && flatpak.contains("SandboxStore.automatic"))
        let snap = try #require(Auth.sandboxWarning(
            for: Self.group, store: Self.secretService, sandbox: .snap(name: "my-app"), reachable: { _ in false }))
        #expect(snap.contains("snap connect my-app:password-manager-service"))
    }

    @Test func noWarningWhereSharingWorks() {
        // A sandbox that lets the app through to the Secret Service shares as well as no sandbox.
        #expect(Auth.sandboxWarning(for: Self.group, store: Self.secretService, sandbox: .flatpak(appID: "a.b"), reachable: { _ in true }) == nil)
        #expect(Auth.sandboxWarning(for: Self.group, store: Self.secretService, sandbox: .none, reachable: { _ in false }) == nil)
        // Another store (in memory) shares nothing across processes anyway: not the sandbox's doing.
        #expect(Auth.sandboxWarning(for: Self.group, store: InMemoryStore(), sandbox: .snap(name: "x"), reachable: { _ in false }) == nil)
    }
}
