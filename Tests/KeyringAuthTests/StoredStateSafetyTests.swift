import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// No failure loses or changes a stored user: a failed sign-in, a failed group switch (each step
/// failing in turn), a keyring that cannot be read at launch; and Firebase's tenant and identity
/// rules on every path that makes a stored user current.
@Suite struct StoredStateSafetyTests {
    static let group = TwoApps.group

    /// App "A" over `store` with its own backend and in-memory choices, as `TwoApps` makes it.
    struct App {
        let apps: TwoApps
        let failing: FailingStore

        init() {
            failing = FailingStore()
            apps = TwoApps(store: failing)
        }

        func launch(_ name: String = "A", tenantID: String? = nil, choices: AccessGroupChoices? = nil, logger: LogRecorder? = nil) -> Auth {
            var configuration = apps.configuration(name)
            configuration.options.tenantID = tenantID
            if let choices { configuration.groupChoices = choices }
            if let logger { configuration.logger = logger.logger }
            return Auth(configuration: configuration)
        }

        func privateKey(_ name: String = "A") -> KeychainKey { StoredUserKeys.privateUser(apps.options(name)) }
        var groupKey: KeychainKey { StoredUserKeys.sharedUser(apps.options("A"), in: try! AccessGroup(StoredStateSafetyTests.group)) }

        /// The bytes stored under `key` (the store's blocking read, also from async tests).
        func stored(_ key: KeychainKey) throws -> Data? { try failing.base.data(for: key) }

        /// Every item's bytes, to compare before and after.
        func contents() throws -> [KeychainKey: Data] {
            var contents: [KeychainKey: Data] = [:]
            for item in try failing.base.items(in: .all) { contents[item.key] = try failing.base.data(for: item.key) }
            return contents
        }

        func signUp(email: String, password: String) async throws {
            _ = try await apps.backend.signUp(email: email, password: password, tenantID: nil)
        }
    }

    /// A throwaway state directory.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("keyring-auth-\(UUID().uuidString)")
    }

    /// Makes `directory` unusable for choices from now on: a regular file takes its place.
    static func breakDirectory(_ directory: URL) throws {
        try FileManager.default.removeItem(at: directory)
        try Data("not a directory".utf8).write(to: directory)
    }

    // MARK: 1. A failed sign-in changes nothing

    @Test func aSignInIntoAGroupThatTheBackendRefusesChangesNothingStored() async throws {
        let app = App()
        try await app.signUp(email: "ada@example.com", password: "right-password")
        let auth = app.launch()
        let privateUser = try await auth.signIn(withEmail: "ada@example.com", password: "right-password").user
        let other = app.launch("B")
        try other.useUserAccessGroup(Self.group)
        let groupUser = try await other.signInAnonymously().user
        let before = try app.contents()

        await #expect(throws: AuthError.self) {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "WRONG", switchingTo: Self.group)
        }
        #expect(try app.contents() == before)
        #expect(auth.userAccessGroup == nil)
        #expect(auth.currentUser === privateUser)
        let relaunched = app.launch()
        #expect(relaunched.userAccessGroup == nil)
        #expect(relaunched.currentUser?.uid == privateUser.uid)
        #expect(try relaunched.getStoredUser(forAccessGroup: Self.group)?.uid == groupUser.uid)
    }

    @Test func aSignInIntoAGroupSwitchesOnlyOnceTheBackendSaidYes() async throws {
        let app = App()
        try await app.signUp(email: "ada@example.com", password: "right-password")
        let auth = app.launch()
        _ = try await auth.signInAnonymously()
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "right-password", switchingTo: Self.group).user
        #expect(auth.userAccessGroup == Self.group)
        #expect(auth.currentUser === user)
        #expect(try app.stored(app.privateKey()) == nil, "leaving the private scope signs its user out")
        #expect(app.launch().currentUser?.uid == user.uid)
    }

    @Test func anAnonymousSignInIntoAGroupKeepsTheGroupsAnonymousUser() async throws {
        let app = App()
        let other = app.launch("B")
        try other.useUserAccessGroup(Self.group)
        let shared = try await other.signInAnonymously().user
        let auth = app.launch()
        let user = try await auth.signInAnonymously(switchingTo: Self.group).user
        #expect(user.uid == shared.uid)
        #expect(app.apps.backend.calls.filter { $0 == "signUpAnonymously" }.count == 1)
    }

    // MARK: 2 and 4. Switching groups is all or nothing

    @Test func aMigrationWhoseChoiceCannotBeSavedPutsTheGroupsUserBack() async throws {
        let app = App()
        let other = app.launch("B")
        try other.useUserAccessGroup(Self.group)
        _ = try await other.signInAnonymously()
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let auth = app.launch(choices: .stateDirectory(directory))
        try await app.signUp(email: "ada@example.com", password: "pw1234")
        let privateUser = try await auth.signIn(withEmail: "ada@example.com", password: "pw1234").user
        let before = try app.contents()
        try Self.breakDirectory(directory)

        #expect {
            try auth.useUserAccessGroup(Self.group, migratingCurrentUser: true)
        } throws: { ($0 as? AuthError)?.code == .accessGroupChoiceError }
        #expect(try app.contents() == before, "the group's user and the private user are as they were")
        #expect(auth.userAccessGroup == nil)
        #expect(auth.currentUser === privateUser)
    }

    @Test(arguments: [false, true])
    func enteringAGroupWhosePrivateItemCannotBeDeletedThrowsAndChangesNothing(migrating: Bool) async throws {
        let app = App()
        let other = app.launch("B")
        try other.useUserAccessGroup(Self.group)
        _ = try await other.signInAnonymously()
        let auth = app.launch()
        let privateUser = try await auth.signInAnonymously().user
        let before = try app.contents()
        app.failing.failingKey.withLock { $0 = app.privateKey() }
        app.failing.failRemoves.store(true, ordering: .relaxed)

        #expect {
            try auth.useUserAccessGroup(Self.group, migratingCurrentUser: migrating)
        } throws: { ($0 as? AuthError)?.code == .keychainError }
        #expect(try app.contents() == before)
        #expect(auth.userAccessGroup == nil)
        #expect(auth.currentUser === privateUser)
        #expect(app.launch().userAccessGroup == nil, "the saved choice is unchanged")
    }

    // MARK: 3. The group choice lives outside the keyring

    @Test func theChoiceIsAFileWithFirebasesKeyReadableOnlyByItsOwner() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = App()
        let auth = app.launch(choices: .stateDirectory(directory))
        try auth.useUserAccessGroup(Self.group)

        let file = try #require(AccessGroupChoices.stateDirectory(directory).fileURL(forAppID: app.apps.options("A").appID))
        #expect(file.lastPathComponent == "com.google.Firebase.Auth.firebase_auth_1:42:linux:A.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: String]
        #expect(object == ["firebase_auth_stored_user_access_group": Self.group])
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try app.contents().isEmpty, "nothing of the choice is in the keyring")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [file.lastPathComponent])

        try auth.useUserAccessGroup(nil)
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: String] == [:])
        #expect(app.launch(choices: .stateDirectory(directory)).userAccessGroup == nil)
    }

    @Test func aChoiceFileThatIsAFIFOIsAnErrorNotAWait() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = App()
        let choices = AccessGroupChoices.stateDirectory(directory)
        let file = try #require(choices.fileURL(forAppID: app.apps.options("A").appID))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(mkfifo(file.path, 0o600) == 0)
        // Nobody writes to the FIFO: reading it as a file would wait for ever.
        #expect {
            try choices.saved(forAppID: app.apps.options("A").appID)
        } throws: { ($0 as? AuthError)?.code == .accessGroupChoiceError && "\($0)".contains("not a regular file") }
    }

    @Test func anAppIDCannotNameAnotherDirectory() {
        #expect(AccessGroupChoices.fileSafe("../../x/y") == "..%2F..%2Fx%2Fy")
        #expect(AccessGroupChoices.fileSafe("1:42:linux:abc-D_e.f") == "1:42:linux:abc-D_e.f")
    }

    @Test func xdgStateHomeIsUsedOnlyWhenAbsolute() {
        #expect(AccessGroupChoices.standardDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/keyring-auth")
        #expect(AccessGroupChoices.standardDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path == "/h/.local/state/keyring-auth")
        #expect(AccessGroupChoices.standardDirectory(environment: ["HOME": "/h"]).path == "/h/.local/state/keyring-auth")
    }

    @Test func aChoiceKeptInTheKeyringByEarlierVersionsIsMovedOnce() throws {
        let app = App()
        let options = app.apps.options("A")
        let legacy = StoredUserKeys.legacyAccessGroupChoice(options)
        try app.failing.base.setData(Data(Self.group.utf8), for: legacy, label: "Firebase access group of app A")

        let auth = app.launch()
        #expect(auth.userAccessGroup == Self.group)
        #expect(auth.startupError == nil)
        #expect(try app.stored(legacy) == nil, "the old item is removed once moved")
        #expect(try app.apps.groupChoices.saved(forAppID: options.appID) == .choice(try AccessGroup(Self.group)))
        #expect(app.launch().userAccessGroup == Self.group)
    }

    @Test func aLockedKeyringAtLaunchKeepsTheGroupAndWritesNothingPrivately() async throws {
        let app = App()
        let auth = app.launch()
        try auth.useUserAccessGroup(Self.group)
        let user = try await auth.signInAnonymously().user

        app.failing.failReads.store(true, ordering: .relaxed)
        let relaunched = app.launch()
        let states = ListenerLog()
        relaunched.addStateDidChangeListener { _, user in states.record(user) }
        #expect(relaunched.userAccessGroup == Self.group, "the choice is known without the keyring")
        #expect(relaunched.currentUser == nil)
        #expect(relaunched.startupError?.keychainError == FailingStore.failure)
        #expect(try await states.next() == nil)
        #expect(throws: AuthError.self) { _ = try relaunched.getStoredUser(forAccessGroup: Self.group) }

        app.failing.failReads.store(false, ordering: .relaxed)
        // The next call that reads the group's item loads the user start-up could not.
        #expect(try relaunched.getStoredUser(forAccessGroup: Self.group)?.uid == user.uid)
        #expect(relaunched.currentUser?.uid == user.uid)
        #expect(relaunched.startupError == nil)
        #expect(try await states.next() == user.uid)
        #expect(try app.stored(app.privateKey()) == nil, "nothing was written privately")
    }

    @Test func aSignInWhileTheGroupsUserCannotBeReadGoesToTheGroup() async throws {
        let app = App()
        try app.launch().useUserAccessGroup(Self.group)
        app.failing.failReads.store(true, ordering: .relaxed)
        let relaunched = app.launch()
        #expect(relaunched.startupError != nil)
        let user = try await relaunched.signIn(withEmail: "x", password: "y", orCreate: app)
        #expect(try app.stored(app.privateKey()) == nil)
        #expect(try app.stored(app.groupKey) != nil)
        #expect(relaunched.currentUser === user)
    }

    @Test func aPlantedInvalidChoiceIsReportedAndNothingIsWrittenUntilAGroupIsChosen() async throws {
        let app = App()
        let options = app.apps.options("A")
        try app.apps.groupChoices.restore(Data(#"{"firebase_auth_stored_user_access_group":"bad group"}"#.utf8), forAppID: options.appID)
        let auth = app.launch()
        #expect(auth.startupError?.code == .accessGroupChoiceError)
        #expect(auth.currentUser == nil)
        await #expect {
            _ = try await auth.signInAnonymously()
        } throws: { ($0 as? AuthError)?.code == .accessGroupChoiceError }
        #expect(try app.contents().isEmpty)

        try auth.useUserAccessGroup(Self.group)
        #expect(auth.startupError == nil)
        _ = try await auth.signInAnonymously()
        #expect(try app.stored(app.groupKey) != nil)
    }

    // MARK: 5. Tenants

    @Test func aGroupUserOfAnotherTenantIsNeverAdopted() async throws {
        let app = App()
        let other = app.launch("B", tenantID: "tenant-b")
        try other.useUserAccessGroup(Self.group)
        let theirs = try await other.signInAnonymously().user
        #expect(theirs.tenantID == "tenant-b")

        // useUserAccessGroup refuses it and changes nothing.
        let auth = app.launch(tenantID: "tenant-a")
        let mine = try await auth.signInAnonymously().user
        let before = try app.contents()
        #expect {
            try auth.useUserAccessGroup(Self.group)
        } throws: { ($0 as? AuthError)?.code == .tenantIDMismatch }
        #expect(try app.contents() == before)
        #expect(auth.currentUser === mine)
        #expect(auth.userAccessGroup == nil)

        // At launch: no current user, the reason in startupError, the item untouched.
        try app.apps.groupChoices.save(try AccessGroup(Self.group), forAppID: app.apps.options("A").appID)
        let launched = app.launch(tenantID: "tenant-a")
        #expect(launched.userAccessGroup == Self.group)
        #expect(launched.currentUser == nil)
        #expect(launched.startupError?.code == .tenantIDMismatch)
        #expect(try app.contents() == before)
    }

    @Test func liveSyncDoesNotAdoptAnotherTenantsUser() async throws {
        let app = App()
        let recorder = LogRecorder()
        let auth = app.launch("B", tenantID: "tenant-b", logger: recorder)
        try auth.useUserAccessGroup(Self.group)
        #expect(auth.isLiveSyncActive)

        let other = app.launch("A", tenantID: "tenant-a")
        try other.useUserAccessGroup(Self.group)
        let theirs = try await other.signInAnonymously().user
        let warning = try await recorder.warnings.next(where: { $0.contains("keeping the current user") })
        #expect(warning.contains("cannot be adopted"))
        #expect(auth.currentUser == nil)
        #expect(try app.stored(app.groupKey).map { try StoredUserRecord.decode($0, key: app.groupKey).uid } == theirs.uid)
    }

    // MARK: 6. updateCurrentUser keeps the object

    @Test func theMigrationFlowKeepsTheSameUserObject() async throws {
        let app = App()
        let auth = app.launch()
        let user = try await auth.signInAnonymously().user
        try auth.useUserAccessGroup(Self.group)
        #expect(auth.currentUser == nil)
        try await auth.updateCurrentUser(user)
        #expect(auth.currentUser === user)
        #expect(app.launch().currentUser?.uid == user.uid)
    }
}

extension Auth {
    /// Signs in with a new email account made on `app`'s backend.
    fileprivate func signIn(withEmail email: String, password: String, orCreate app: StoredStateSafetyTests.App) async throws -> User {
        try await app.signUp(email: email, password: password + "-long")
        return try await signIn(withEmail: email, password: password + "-long").user
    }
}
