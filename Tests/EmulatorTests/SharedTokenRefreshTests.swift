import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Synchronization
import Testing

@testable import KeyringAuth

/// One token refresh at a time: concurrent `getIDToken` calls share one request to the secure-token
/// endpoint (counted at the emulator), and a refresh that ends after a sign-out or another user's
/// sign-in saves nothing onto them.
@Suite struct SharedTokenRefreshTests {
    /// The secure-token requests the emulator has answered.
    private static func refreshes(_ fixture: EmulatorFixture) -> Int {
        fixture.emulator.receivedRequests.filter { $0.operation == "token" }.count
    }

    @Test func fiftyCallsOnAnExpiredTokenSendOneRefreshAndAllGetItsToken() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.signInAnonymously().user
        let old = user.storedRecord.tokens.idToken
        user.record.withLock { $0.tokens.expirationDate = Date().addingTimeInterval(-60) }

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await user.getIDToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(Self.refreshes(fixture) == 1, "one refresh request for 50 calls")
        #expect(tokens.count == 1 && tokens.first != old, "every call got the one new token")
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.storedRecord.tokens.idToken == tokens.first, "and saved")
    }

    /// An ``Auth`` over an in-memory store whose refreshes go through a gate to `fixture`'s emulator.
    private static func gatedAuth(_ fixture: EmulatorFixture) -> (Auth, GatedRefreshBackend) {
        let gated = GatedRefreshBackend(fixture.backend)
        let options = AuthAppOptions(apiKey: gated.apiKey, appID: "1:42:linux:gated", projectID: "demo-keyring-auth")
        return (Auth(configuration: AuthConfiguration(options: options, store: InMemoryStore(), backend: gated)), gated)
    }

    @Test func fiftyForcedRefreshesAtOnceSendOneRequest() async throws {
        let fixture = try await EmulatorFixture.start()
        let (auth, gated) = Self.gatedAuth(fixture)
        let user = try await auth.signInAnonymously().user

        // The refresh is held at the gate until all 50 calls wait for it; then one request goes out.
        gated.releaseWhen { user.tokenRefresh.callers == 50 }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await user.getIDToken(forcingRefresh: true) } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(Self.refreshes(fixture) == 1, "one refresh request for 50 forced calls")
        #expect(tokens.count == 1 && tokens.first == user.storedRecord.tokens.idToken)
        #expect(user.tokenRefresh.callers == 0, "nothing is left running")

        // Once it has ended, a forced call refreshes again.
        gated.releaseWhen { true }
        let again = try await user.getIDToken(forcingRefresh: true)
        #expect(Self.refreshes(fixture) == 2 && !tokens.contains(again))
    }

    @Test func aRefreshEndingAfterASignOutAndAnotherSignInSavesNothingOntoTheNewUser() async throws {
        let fixture = try await EmulatorFixture.start()
        let (auth, gated) = Self.gatedAuth(fixture)
        let first = try await auth.signInAnonymously().user
        let released = Mutex(false)
        gated.releaseWhen { released.withLock { $0 } }
        let refresh = Task { try await first.getIDToken(forcingRefresh: true) }
        try await gated.waitUntilHeld()

        try auth.signOut()
        let second = try await auth.signInAnonymously().user
        let secondToken = second.storedRecord.tokens.idToken
        released.withLock { $0 = true }
        let refreshed = try await refresh.value

        #expect(try await fixture.backend.lookUp(idToken: refreshed).uid == first.uid, "the caller got the first user's new token")
        #expect(auth.currentUser === second)
        let stored = try auth.getStoredUser(forAccessGroup: nil)?.storedRecord
        #expect(stored?.uid == second.uid && stored?.tokens.idToken == secondToken, "the second user's item is untouched")
    }
}
