import KeyringAuth
import Synchronization

/// The emulator's backend, with each token refresh held until a condition holds (checked every millisecond).
/// The wait ends when the test opens the gate; the two-minute bound only turns a test that never opens it into
/// a failure instead of a hang, and is far beyond what a test takes on a loaded machine (a sign-out and a sign-in
/// between holding and opening took over 10 s with the suite, two CPU hogs and other suites beside it).
package final class GatedRefreshBackend: AuthBackend {
    private let base: IdentityToolkitBackend
    private let condition = Mutex<@Sendable () -> Bool>({ true })
    private let held = Mutex(0)

    package init(_ base: IdentityToolkitBackend) { self.base = base }

    package var apiKey: String { base.apiKey }

    package func releaseWhen(_ condition: @escaping @Sendable () -> Bool) { self.condition.withLock { $0 = condition } }

    /// Returns once a refresh waits at the gate.
    package func waitUntilHeld() async throws {
        try await Self.poll { self.held.withLock { $0 > 0 } }
    }

    private static func poll(_ done: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !done() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    package func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        held.withLock { $0 += 1 }
        let condition = self.condition.withLock { $0 }
        do { try await Self.poll(condition) } catch { throw AuthError(.internalError, "the gate was never opened") }
        held.withLock { $0 -= 1 }
        return try await base.refresh(refreshToken: refreshToken, context: context)
    }

    package func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try await base.signUpAnonymously(context: context)
    }
    package func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try await base.signUp(email: email, password: password, context: context)
    }
    package func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try await base.signIn(email: email, password: password, context: context)
    }
    package func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount {
        try await base.lookUp(idToken: idToken, context: context)
    }
    package func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
        try await base.update(idToken: idToken, changes: changes, context: context)
    }
    package func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) {
        try await base.delete(idToken: idToken, context: context)
    }
    package func signIn(email: String, emailLinkCode: String, linkingTo idToken: String?, context: AuthRequestContext) async throws(AuthError)
        -> BackendSignIn
    {
        try await base.signIn(email: email, emailLinkCode: emailLinkCode, linkingTo: idToken, context: context)
    }
}
