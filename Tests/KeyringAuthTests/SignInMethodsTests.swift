import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// The credential sign-ins, linking and the request settings through ``Auth``, with the keychain and the
/// backend in memory (the same against the emulator over HTTP: EmulatorTests/SignInWithCredentialTests).
@Suite struct SignInMethodsTests {
    @Test func linkingAnAnonymousUserInOneAppMakesItPermanentInTheOtherAtOnce() async throws {
        let apps = TwoApps()
        let a = Auth(configuration: apps.configuration("A"))
        let b = Auth(configuration: apps.configuration("B"))
        try a.useUserAccessGroup(TwoApps.group)
        try b.useUserAccessGroup(TwoApps.group)
        let tokens = ListenerLog()
        b.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        #expect(try await tokens.next() == nil)

        let user = try await a.signInAnonymously().user
        #expect(try await tokens.next() == user.uid)
        let seenByB = try #require(b.currentUser)
        #expect(seenByB.isAnonymous)

        _ = try await user.link(with: EmailAuthProvider.credential(withEmail: "kept@example.com", password: "forever-1"))
        #expect(try await tokens.next() == user.uid, "B is told of the new token")
        #expect(b.currentUser === seenByB, "the same user, updated in place")
        #expect(!seenByB.isAnonymous && seenByB.email == "kept@example.com" && seenByB.providerData.map(\.providerID) == ["password"])
        // A new launch of B sees the permanent user too.
        #expect(apps.launch("B").currentUser?.isAnonymous == false)
    }

    @Test func aProviderUserSignedInInOneAppIsTheUserOfTheOther() async throws {
        let apps = TwoApps()
        let a = Auth(configuration: apps.configuration("A"))
        try a.useUserAccessGroup(TwoApps.group)
        let result = try await a.signIn(with: GoogleAuthProvider.credential(withIDToken: "google-user-1", accessToken: "at"))
        #expect(result.additionalUserInfo?.isNewUser == true && result.credential?.accessToken == "at")
        let b = apps.launch("B")
        try b.useUserAccessGroup(TwoApps.group)
        #expect(b.currentUser?.uid == result.user.uid && b.currentUser?.providerData.map(\.providerID) == ["google.com"])
        let seenByA = ListenerLog()
        a.addStateDidChangeListener { _, user in seenByA.record(user) }
        #expect(try await seenByA.next() == result.user.uid)
        let custom = try await b.signIn(withCustomToken: "server-uid")
        #expect(custom.user.uid == "server-uid" && !custom.user.isAnonymous)
        // A learns of B's sign-in through live sync, which delivers on A's own queue.
        #expect(try await seenByA.next(where: { $0 == "server-uid" }) == "server-uid")
        #expect(a.currentUser?.uid == "server-uid")
    }

    @Test func everyRequestCarriesTheTenantAndLanguageSetNow() async throws {
        let apps = TwoApps()
        let auth = apps.launch("A", liveSync: false)
        #expect(auth.tenantID == nil && auth.languageCode == nil)
        auth.tenantID = "tenant-1"
        auth.languageCode = "de"
        let user = try await auth.signIn(withCustomToken: "t-user").user
        #expect(user.tenantID == "tenant-1", "the record keeps the tenant it signed in to")
        _ = try await user.link(with: GitHubAuthProvider.credential(withToken: "gh"))
        try await user.unlink(fromProvider: "github.com")
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(apps.backend.contexts.allSatisfy { $0 == AuthRequestContext(tenantID: "tenant-1", languageCode: "de") })
        #expect(apps.backend.calls.contains("linkWithIdp") && apps.backend.calls.contains("update"))

        auth.languageCode = ""
        #expect(auth.languageCode == nil, "empty means none")
    }

    @Test func changingTheTenantKeepsTheUserButRefusesAnotherTenantsUser() async throws {
        let apps = TwoApps()
        let auth = apps.launch("A", liveSync: false)
        let user = try await auth.signInAnonymously().user
        auth.tenantID = "tenant-2"
        #expect(auth.currentUser === user, "setting the tenant signs nobody out")
        do {
            try await auth.updateCurrentUser(user)
            Issue.record("a user of no tenant was adopted in tenant-2")
        } catch let error as AuthError {
            #expect(error.code == .tenantIDMismatch)
        }
    }

    @Test func aReauthenticationWithAnotherUsersCredentialIsUserMismatch() async throws {
        let apps = TwoApps()
        let auth = apps.launch("A", liveSync: false)
        _ = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "someone", accessToken: ""))
        let me = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "me", accessToken: "")).user
        let stored = try await apps.store.data(for: StoredUserKeys.user(apps.options("A"), in: nil))
        do {
            _ = try await me.reauthenticate(with: GoogleAuthProvider.credential(withIDToken: "someone", accessToken: ""))
            Issue.record("reauthenticated as another user")
        } catch let error as AuthError {
            #expect(error.code == .userMismatch)
        }
        #expect(try await apps.store.data(for: StoredUserKeys.user(apps.options("A"), in: nil)) == stored, "nothing stored changed")
        _ = try await me.reauthenticate(with: GoogleAuthProvider.credential(withIDToken: "me", accessToken: ""))
    }

    @Test(arguments: [
        (["LANG": "pt_BR.UTF-8"], "pt-BR"),
        (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_CA.UTF-8"], "fr-CA"),
        (["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_CA.UTF-8", "LC_ALL": "ja_JP.eucJP"], "ja-JP"),
        (["LC_ALL": "", "LANG": "es_ES@euro"], "es-ES"),
        (["LANG": "sr_RS@latin"], "sr-RS"),
        (["LANG": "nl"], "nl"),
        (["LANG": "C.UTF-8"], nil),
        (["LANG": "POSIX"], nil),
        (["LANG": "../../etc"], nil),
        ([:], nil),
    ] as [([String: String], String?)])
    func theAppLanguageComesFromThePOSIXLocaleVariables(_ environment: [String: String], _ expected: String?) {
        #expect(Auth.appLanguage(environment) == expected)
    }
}
