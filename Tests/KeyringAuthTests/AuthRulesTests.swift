import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth
import KeyringTestSupport

/// `Auth`'s rules beside the walkthrough: sign-in and sign-out failures, nil and foreign-tenant
/// users, invalid groups, corrupt records, listeners and streams, token refusals, concurrency.
@Suite struct AuthRulesTests {
    @Test func signInAnonymouslyReturnsAnAlreadyAnonymousUser() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let first = try await auth.signInAnonymously().user
        let second = try await auth.signInAnonymously().user
        #expect(first === second)
        #expect(apps.backend.calls.filter { $0 == "signUpAnonymously" }.count == 1)
    }

    @Test func aFailedSaveFailsTheSignInAndKeepsTheCurrentUser() async throws {
        let store = FailingStore()
        let apps = TwoApps(store: store)
        let auth = apps.launch("app-a")
        let before = try await auth.createUser(withEmail: "k@example.com", password: "secret1").user
        store.failWrites.store(true, ordering: .relaxed)
        await #expect(throws: AuthError.keychain(FailingStore.failure)) {
            try await auth.signIn(withEmail: "k@example.com", password: "secret1")
        }
        #expect(auth.currentUser === before)
    }

    @Test func aFailedSignOutThrowsAndStaysSignedIn() async throws {
        let store = FailingStore()
        let auth = TwoApps(store: store).launch("app-a")
        let user = try await auth.signInAnonymously().user
        store.failRemoves.store(true, ordering: .relaxed)
        #expect(throws: AuthError.keychain(FailingStore.failure)) { try auth.signOut() }
        #expect(auth.currentUser === user)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.uid == user.uid)
    }

    @Test func signingOutWithNoUserDoesNothing() throws {
        let auth = TwoApps().launch("app-a")
        try auth.signOut()
        #expect(auth.currentUser == nil)
    }

    @Test func updateCurrentUserRefusesNilAndForeignTenants() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        await #expect(throws: AuthError.self) { try await auth.updateCurrentUser(nil) }
        var tenantApp = apps.configuration("tenant-app")
        tenantApp.options.tenantID = "tenant-1"
        let tenantAuth = Auth(configuration: tenantApp)
        let foreign = try await auth.signInAnonymously().user
        await #expect {
            try await tenantAuth.updateCurrentUser(foreign)
        } throws: { ($0 as? AuthError)?.code == .tenantIDMismatch }
        #expect(tenantAuth.currentUser == nil)
    }

    @Test func anInvalidGroupIsAKeychainErrorAndChangesNothing() async throws {
        let auth = TwoApps().launch("app-a")
        let user = try await auth.signInAnonymously().user
        #expect(throws: AuthError.keychain(.invalidAccessGroup("bad group", violation: .containsWhitespace))) {
            try auth.useUserAccessGroup("bad group")
        }
        #expect(auth.currentUser === user)
        #expect(auth.userAccessGroup == nil)
    }

    @Test func aCorruptRecordIsATypedErrorAndIsNeverOverwrittenSilently() throws {
        let apps = TwoApps()
        let options = apps.configuration("app-a").options
        let key = StoredUserKeys.user(options, in: nil)
        try apps.store.setData(Data("garbage".utf8), for: key, label: "corrupt")

        let auth = apps.launch("app-a")
        #expect(auth.currentUser == nil)
        #expect(auth.startupError?.code == .corruptStoredUser)
        #expect { try auth.getStoredUser(forAccessGroup: nil) } throws: { ($0 as? AuthError)?.code == .corruptStoredUser }
        #expect(try apps.store.data(for: key) == Data("garbage".utf8))
    }

    @Test func listenersFireOnRegistrationAndOnUIDChangesOnly() async throws {
        let auth = TwoApps().launch("app-a")
        let states = ListenerLog(), tokens = ListenerLog()
        auth.addStateDidChangeListener { _, user in states.record(user) }
        auth.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        let user = try await auth.signInAnonymously().user
        _ = try await user.getIDToken(forcingRefresh: true)
        try auth.signOut()
        #expect(await states.events(after: auth) == [nil, user.uid, nil])
        #expect(await tokens.events(after: auth) == [nil, user.uid, user.uid, nil])
    }

    @Test func aRemovedListenerHearsNothingMore() async throws {
        let auth = TwoApps().launch("app-a")
        let states = ListenerLog()
        let handle = auth.addStateDidChangeListener { _, user in states.record(user) }
        auth.removeStateDidChangeListener(handle)
        _ = try await auth.signInAnonymously()
        #expect(await states.events(after: auth) == [nil], "only the registration call, queued before the removal")
    }

    @Test func theStateStreamStartsWithTheCurrentUser() async throws {
        let auth = TwoApps().launch("app-a")
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next().map { $0?.uid } == .some(nil))
        let user = try await auth.signInAnonymously().user
        #expect(await changes.next()??.uid == user.uid)
        try auth.signOut()
        #expect(await changes.next().map { $0?.uid } == .some(nil))
    }

    @Test func eachIterationOfTheSequencesRegistersWhenItStartsAndIsRemovedWhenItEnds() async throws {
        let auth = TwoApps().launch("app-a")
        let registered = { auth.state.withLock { ($0.stateStreams.count, $0.tokenStreams.count) } }
        let states = auth.authStateChanges
        #expect(registered() == (0, 0), "the property alone registers nothing")
        do {
            var first = states.makeAsyncIterator()
            var second = states.makeAsyncIterator()
            #expect(registered() == (2, 0), "one registration per iterator")
            #expect(await first.next().map { $0?.uid } == .some(nil))
            #expect(await second.next().map { $0?.uid } == .some(nil))
        }
        #expect(registered() == (0, 0), "dropped iterators are removed")

        var tokens = auth.idTokenChanges.makeAsyncIterator()
        #expect(await tokens.next().map { $0?.uid } == .some(nil))
        let user = try await auth.signInAnonymously().user
        #expect(await tokens.next()??.uid == user.uid)
        let refreshed = try await user.getIDToken(forcingRefresh: true)
        #expect(await tokens.next()??.storedRecord.tokens.idToken == refreshed, "a new token is a change of idTokenChanges")

        for await user in auth.authStateChanges where user != nil { break }
        #expect(registered() == (0, 1), "a loop left by break is removed")
    }

    @Test func theAuthStateNotificationIsPostedForEachChangeTokenListenersHear() async throws {
        let auth = TwoApps().launch("app-a")
        let posted = ListenerLog()
        let observer = NotificationCenter.default.addObserver(forName: .AuthStateDidChange, object: auth, queue: nil) { note in
            posted.record((note.object as? Auth)?.currentUser)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(Auth.authStateDidChangeNotification == Notification.Name("FIRAuthStateDidChangeNotification"))
        let user = try await auth.signInAnonymously().user
        #expect(try await posted.next() == user.uid, "sign-in")
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(try await posted.next() == user.uid, "a new token")
        try auth.signOut()
        #expect(try await posted.next() == nil, "sign-out")
    }

    @Test func aRefreshRefusedForGoodSignsTheUserOut() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let user = try await auth.createUser(withEmail: "d@example.com", password: "secret1").user
        try await apps.backend.delete(idToken: user.storedRecord.tokens.idToken)
        await #expect { try await user.getIDToken(forcingRefresh: true) } throws: { ($0 as? AuthError)?.code == .userTokenExpired }
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil)
    }

    @Test func manyConcurrentCallsLeaveTheStoredAndCurrentUserInAgreement() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        try auth.useUserAccessGroup(TwoApps.group)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for index in 0..<60 {
                tasks.addTask {
                    switch index % 3 {
                    case 0: _ = try await auth.createUser(withEmail: "c\(index)@example.com", password: "secret1")
                    case 1: try auth.signOut()
                    default: _ = try await auth.signInAnonymously()
                    }
                }
            }
            try await tasks.waitForAll()
        }
        #expect(try auth.getStoredUser(forAccessGroup: TwoApps.group)?.uid == auth.currentUser?.uid)
        #expect(apps.launch("app-b").currentUser == nil, "B never chose the group")
    }
}
