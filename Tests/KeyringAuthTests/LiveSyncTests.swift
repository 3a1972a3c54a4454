import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// Two running apps of one group in one process, over one in-memory store: each sees the other's
/// changes as they happen. The same over the real keyring and two processes is in IntegrationTests.
@Suite struct LiveSyncTests {
    /// A running app in `TwoApps.group`, its listeners recorded from the group switch on.
    struct RunningApp {
        let auth: Auth
        let states = ListenerLog()
        let tokens = ListenerLog()

        init(_ name: String, of apps: TwoApps, group: String? = TwoApps.group, configure: (inout AuthConfiguration) -> Void = { _ in }) throws {
            var configuration = apps.configuration(name)
            configure(&configuration)
            auth = Auth(configuration: configuration)
            try auth.useUserAccessGroup(group)
            let (states, tokens) = (states, tokens)
            auth.addStateDidChangeListener { _, user in states.record(user) }
            auth.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        }
    }

    @Test func twoRunningAppsStayInStepThroughSignInRefreshAndSignOut() async throws {
        let apps = TwoApps()
        let a = try RunningApp("A", of: apps), b = try RunningApp("B", of: apps)
        #expect(a.auth.isLiveSyncActive && b.auth.isLiveSyncActive)
        #expect(try await b.states.next() == nil)
        #expect(try await b.tokens.next() == nil)

        let user = try await a.auth.signInAnonymously().user
        #expect(try await b.states.next() == user.uid)
        #expect(try await b.tokens.next() == user.uid)
        let seenByB = try #require(b.auth.currentUser)
        #expect(seenByB.storedRecord.encoded() == user.storedRecord.encoded())

        // A refreshes the token: B's token listener fires (its state listener does not), and B's
        // user object is updated in place.
        let token = try await user.getIDToken(forcingRefresh: true)
        #expect(try await b.tokens.next() == user.uid)
        #expect(b.auth.currentUser === seenByB)
        #expect(seenByB.storedRecord.tokens.idToken == token)

        // B signs out: A is signed out.
        try b.auth.signOut()
        _ = try await a.states.next { $0 == user.uid }
        #expect(try await a.states.next() == nil)
        #expect(a.auth.currentUser == nil)
        #expect(await a.states.events(after: a.auth) == [nil, user.uid, nil], "A's own writes do not come back")
        #expect(await a.tokens.events(after: a.auth) == [nil, user.uid, user.uid, nil])
        #expect(await b.states.events(after: b.auth) == [nil, user.uid, nil])
        #expect(await b.tokens.events(after: b.auth) == [nil, user.uid, user.uid, nil])
    }

    @Test func removingTheGroupsItemsSignsEveryRunningAppOut() async throws {
        let apps = TwoApps()
        let a = try RunningApp("A", of: apps), b = try RunningApp("B", of: apps)
        let user = try await a.auth.signInAnonymously().user
        #expect(try await b.states.next { $0 != nil } == user.uid)
        try await apps.store.removeAll(in: AccessGroup(TwoApps.group))
        #expect(try await b.states.next() == nil)
        _ = try await a.states.next { $0 == user.uid }
        #expect(try await a.states.next() == nil)
        #expect(a.auth.currentUser == nil && b.auth.currentUser == nil)
    }

    @Test func anUnreadableItemIsLoggedAndTheCurrentUserKept() async throws {
        let apps = TwoApps()
        let log = LogRecorder()
        let a = try RunningApp("A", of: apps)
        let b = try RunningApp("B", of: apps) { $0.logger = log.logger }
        let user = try await a.auth.signInAnonymously().user
        #expect(try await b.states.next { $0 != nil } == user.uid)

        let seen = try #require(b.auth.currentUser)
        let key = StoredUserKeys.sharedUser(apps.options("A"), in: try AccessGroup(TwoApps.group))
        try await apps.store.setData(Data("{ not a user".utf8), for: key, label: "corrupt")
        #expect(try await log.warnings.next() == "The shared user changed but cannot be adopted; keeping the current user")
        #expect(b.auth.currentUser === seen)
        #expect(try await apps.store.data(for: key) == Data("{ not a user".utf8), "left as it is")

        // The next valid change is adopted as usual.
        try await apps.store.removeData(for: key)
        #expect(try await b.states.next() == nil)
        #expect(await b.states.events(after: b.auth) == [nil, user.uid, nil], "no other change in between")
    }

    @Test func afterSwitchingGroupsOnlyTheNewGroupIsFollowed() async throws {
        let apps = TwoApps()
        let b = try RunningApp("B", of: apps, group: "TEAMID.com.example.first")
        try b.auth.useUserAccessGroup("TEAMID.com.example.second")
        let inFirst = try RunningApp("A", of: apps, group: "TEAMID.com.example.first")
        let inSecond = try RunningApp("C", of: apps, group: "TEAMID.com.example.second")
        let left = try await inFirst.auth.signInAnonymously().user
        let joined = try await inSecond.auth.signInAnonymously().user
        #expect(try await b.states.next { $0 != nil } == joined.uid)
        #expect(await b.states.events(after: b.auth) == [nil, joined.uid], "never the user of the group it left (\(left.uid))")
    }

    @Test func configureReturnsAfterOneReadAndAChangeMadeBeforeLiveSyncStartsIsAdopted() async throws {
        let base = InMemoryStore()
        let gate = GatedStore(base: base)
        let apps = TwoApps(store: gate)
        try apps.launch("B").useUserAccessGroup(TwoApps.group)  // B's choice, from an earlier launch

        // B launches while following the group cannot start: configure returns all the same, after one read.
        gate.close()
        let readsBefore = gate.reads.load(ordering: .relaxed)
        let b = apps.launch("B")
        #expect(gate.reads.load(ordering: .relaxed) - readsBefore == 1, "configure read the stored user once")
        #expect(!b.isLiveSyncActive && b.currentUser == nil)
        let states = ListenerLog()
        b.addStateDidChangeListener { _, user in states.record(user) }
        #expect(try await states.next() == nil)

        // A signs in before B follows the group, so no change is reported to B's observation…
        var configurationA = apps.configuration("A", store: base)
        configurationA.liveSync = false
        let a = Auth(configuration: configurationA)
        try a.useUserAccessGroup(TwoApps.group)
        let user = try await a.signInAnonymously().user
        // …and B, once it follows, reads the group again and adopts A's user.
        gate.open()
        #expect(try await states.next() == user.uid)
        b.waitForLiveSyncStart()
        #expect(b.isLiveSyncActive)
        #expect(b.currentUser?.uid == user.uid)
    }

    @Test func liveSyncIsOnForSharedGroupsAndCanBeTurnedOff() throws {
        let apps = TwoApps()
        let app = try RunningApp("A", of: apps, group: nil)
        #expect(!app.auth.isLiveSyncActive, "the private scope belongs to one app")
        try app.auth.useUserAccessGroup(TwoApps.group)
        #expect(app.auth.isLiveSyncActive)
        try app.auth.useUserAccessGroup(nil)
        #expect(!app.auth.isLiveSyncActive)
        let optedOut = try RunningApp("B", of: apps) { $0.liveSync = false }
        #expect(!optedOut.auth.isLiveSyncActive)
        // A relaunch in the group follows it once configured (right after configure returns).
        #expect(apps.launch("C").isLiveSyncActive == false)
        try apps.launch("C").useUserAccessGroup(TwoApps.group)
        let relaunched = apps.launch("C")
        relaunched.waitForLiveSyncStart()
        #expect(relaunched.isLiveSyncActive)
    }
}
