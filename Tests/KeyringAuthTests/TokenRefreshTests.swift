import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// Refreshing the ID token ahead of expiry while apps run (``TokenRefreshPolicy``): one app of a group
/// refreshes and saves, the others take its token, so a group makes about one refresh per expiry.
@Suite struct TokenRefreshTests {
    @Test func theDelayLeadsExpiryByTheHeadStartAndSpreadButNeverLoops() {
        let policy = TokenRefreshPolicy.standard
        // A one-hour token: refreshed between eight and five minutes before expiry.
        #expect(Auth.refreshDelay(remaining: 3600, policy: policy, random: 0) == 3300)
        #expect(Auth.refreshDelay(remaining: 3600, policy: policy, random: 1) == 3120)
        // A two-minute token (an emulator's): after a quarter to a half of its life, still spread, never a loop.
        #expect(Auth.refreshDelay(remaining: 120, policy: policy, random: 0) == 60)
        #expect(Auth.refreshDelay(remaining: 120, policy: policy, random: 1) == 30)
        // An expired token: at once.
        #expect(Auth.refreshDelay(remaining: -30, policy: policy, random: 0.5) == 0)
    }

    @Test func runningAppsOfAGroupMakeAboutOneRefreshPerExpiryNotOneEach() async throws {
        // Twenty-second tokens, refreshed 0.5 to 12.5 s before expiry: six apps' refreshes fall about two seconds
        // apart, so the first one's save has two seconds to land before the next app reads the group's item, and
        // twelve before the last one does. The spread is what a loaded machine needs (with 10-s tokens and a 6-s
        // spread, all six apps once refreshed one generation with two CPU hogs and two other suites beside it).
        let backend = FakeBackend(tokenLifetime: 20)
        let apps = TwoApps(backend: backend)
        let count = 6
        var auths: [Auth] = []
        for index in 0..<count {
            var configuration = apps.configuration("app-\(index)")
            configuration.tokenRefresh = TokenRefreshPolicy(headStart: .milliseconds(500), spread: .seconds(12))
            let auth = Auth(configuration: configuration)
            try auth.useUserAccessGroup(TwoApps.group)
            auths.append(auth)
        }
        let tokens = ListenerLog()
        auths[0].addIDTokenDidChangeListener { _, user in tokens.record(user) }
        #expect(try await tokens.next() == nil)
        let user = try await auths[1].signInAnonymously().user
        #expect(try await tokens.next() == user.uid)

        // Each expiry, some app refreshes and every app gets the new token: app 0 hears of each refresh.
        let rounds = 3
        for _ in 0..<rounds { #expect(try await tokens.next() == user.uid) }
        let refreshed = backend.refreshedTokens
        #expect(refreshed.count >= rounds)
        // Uncoordinated, each of the six apps would refresh each generation of the tokens. Coordinated, the
        // first app's refresh is saved and the apps whose refresh comes due later take its token. How many
        // apps still refresh one generation depends on how soon the first one's save lands, which a loaded
        // machine delays (a rate, not a rule: several were seen with two CPU hogs beside the suite); that
        // a later app takes the saved token is tested on its own below. Here: never every app.
        let perGeneration = Dictionary(grouping: refreshed, by: { $0 }).mapValues(\.count)
        #expect(perGeneration.values.allSatisfy { $0 < count }, "refreshes per generation: \(perGeneration.values.sorted())")
        #expect(auths.allSatisfy { $0.currentUser?.uid == user.uid }, "nobody was signed out on the way")
        withExtendedLifetime(auths) {}
    }

    @Test func anAppWhoseRefreshComesDueAfterAnotherAppSavedOneTakesItsTokenInstead() async throws {
        // Two apps of a group, without live sync or timers, so that nothing but the re-read can tell the
        // second of the first one's refresh.
        let backend = FakeBackend()
        let apps = TwoApps(backend: backend)
        func app(_ name: String) throws -> Auth {
            var configuration = apps.configuration(name)
            configuration.tokenRefresh = .disabled
            configuration.liveSync = false
            let auth = Auth(configuration: configuration)
            try auth.useUserAccessGroup(TwoApps.group)
            return auth
        }
        let first = try app("first")
        let user = try await first.signInAnonymously().user
        let second = try app("second")
        let secondsUser = try #require(second.currentUser)
        let tokens = ListenerLog()
        second.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        #expect(try await tokens.next() == user.uid)

        let refreshed = try await user.getIDToken(forcingRefresh: true)
        #expect(secondsUser.storedRecord.tokens.idToken != refreshed, "the second app has not heard of it")
        // The second app's scheduled refresh comes due: it reads the group's item first and takes the token.
        second.refreshAhead(secondsUser)
        #expect(try await tokens.next() == user.uid)
        #expect(secondsUser.storedRecord.tokens.idToken == refreshed)
        #expect(backend.refreshedTokens.count == 1, "only the first app refreshed")
    }

    @Test func aDisabledPolicyNeverRefreshesByItself() async throws {
        let backend = FakeBackend(tokenLifetime: 1)
        let apps = TwoApps(backend: backend)
        var configuration = apps.configuration("quiet")
        configuration.tokenRefresh = .disabled
        let auth = Auth(configuration: configuration)
        let user = try await auth.signInAnonymously().user
        // The token is stale at once; only an explicit call refreshes it.
        _ = try await user.getIDToken()
        #expect(backend.calls.filter { $0 == "refresh" }.count == 1, "the one getIDToken asked for")
        #expect(auth.state.withLock { $0.scheduledRefresh == nil })
    }
}
