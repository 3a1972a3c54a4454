import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth

/// The reference document (`firebase-shared-keychain.md`), step by step, with two apps.
@Suite struct ReferenceWalkthroughTests {
    @Test func signInOnceSignedInEverywhereSignOutOnceSignedOutEverywhere() async throws {
        let apps = TwoApps()
        let appA = apps.launch("app-a"), appB = apps.launch("app-b")
        try appA.useUserAccessGroup(TwoApps.group)
        try appB.useUserAccessGroup(TwoApps.group)
        #expect(appA.userAccessGroup == TwoApps.group)

        let signedIn = try await appA.signInAnonymously().user
        #expect(appA.currentUser?.uid == signedIn.uid)
        #expect(try appB.getStoredUser(forAccessGroup: TwoApps.group)?.uid == signedIn.uid)
        #expect(appB.currentUser == nil, "B sees the change only after a reload, as Firebase documents")

        let appBRelaunched = apps.launch("app-b")
        #expect(appBRelaunched.userAccessGroup == TwoApps.group, "the group choice survives a restart")
        #expect(appBRelaunched.currentUser?.uid == signedIn.uid, "loaded before the first read")

        try appBRelaunched.signOut()
        #expect(appBRelaunched.currentUser == nil)
        #expect(apps.launch("app-a").currentUser == nil, "A is signed out after a reload")
        #expect(try appA.getStoredUser(forAccessGroup: TwoApps.group) == nil)
    }

    @Test func backToAnUnsharedKeychainClearsNothingAndSignsInPrivately() async throws {
        let apps = TwoApps()
        let appA = apps.launch("app-a"), appB = apps.launch("app-b")
        try appA.useUserAccessGroup(TwoApps.group)
        let shared = try await appA.signInAnonymously().user

        try appA.useUserAccessGroup(nil)
        #expect(appA.userAccessGroup == nil)
        // facts.md §1, step 3: the user stored in the new scope (the private item, empty here) becomes
        // current. The "shared→unshared keeps the current user" reads differently; see the note.
        #expect(appA.currentUser == nil)
        #expect(try appA.getStoredUser(forAccessGroup: TwoApps.group)?.uid == shared.uid, "leaving a group clears nothing")

        let privateUser = try await appA.createUser(withEmail: "a@example.com", password: "secret1").user
        #expect(try appA.getStoredUser(forAccessGroup: nil)?.uid == privateUser.uid)
        #expect(try appB.getStoredUser(forAccessGroup: TwoApps.group)?.uid == shared.uid, "the private user is not shared")
        #expect(try appB.getStoredUser(forAccessGroup: nil) == nil, "another app's private item is its own")
    }

    @Test func migratingASignedInUserGivesTwoNotificationsNilThenTheUser() async throws {
        let apps = TwoApps()
        let appA = apps.launch("app-a")
        let user = try #require(try await appA.createUser(withEmail: "m@example.com", password: "secret1").user as User?)
        let states = ListenerLog(), tokens = ListenerLog()
        appA.addStateDidChangeListener { _, user in states.record(user) }
        appA.addIDTokenDidChangeListener { _, user in tokens.record(user) }

        #expect(try appA.getStoredUser(forAccessGroup: TwoApps.group) == nil, "nothing in the group yet")
        try appA.useUserAccessGroup(TwoApps.group)
        #expect(appA.currentUser == nil, "switching to a shared keychain signs the private user out")
        #expect(try appA.getStoredUser(forAccessGroup: nil) == nil, "and deletes the private item")
        try await appA.updateCurrentUser(user)

        #expect(appA.currentUser?.uid == user.uid)
        #expect(await states.events(after: appA) == [user.uid, nil, user.uid])
        #expect(await tokens.events(after: appA) == [user.uid, nil, user.uid])
        #expect(apps.launch("app-b").currentUser == nil, "B has not chosen the group yet")
        let appB = apps.launch("app-b")
        try appB.useUserAccessGroup(TwoApps.group)
        #expect(appB.currentUser?.uid == user.uid, "the user can now be accessed by other apps of the group")
    }

    @Test func optInMigrationCopiesTheUserWithoutSigningOut() async throws {
        let apps = TwoApps()
        let appA = apps.launch("app-a")
        let user = try await appA.signInAnonymously().user
        let states = ListenerLog()
        appA.addStateDidChangeListener { _, user in states.record(user) }

        try appA.useUserAccessGroup(TwoApps.group, migratingCurrentUser: true)
        #expect(appA.currentUser?.uid == user.uid)
        #expect(try appA.getStoredUser(forAccessGroup: TwoApps.group)?.uid == user.uid)
        #expect(try appA.getStoredUser(forAccessGroup: nil) == nil)
        #expect(await states.events(after: appA) == [user.uid], "no sign-out, no notification")
    }
}

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

    @Test func aRefreshRefusedForGoodSignsTheUserOut() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let user = try await auth.createUser(withEmail: "d@example.com", password: "secret1").user
        try await apps.backend.delete(idToken: user.snapshot.tokens.idToken)
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
