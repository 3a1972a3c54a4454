import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Testing

/// ``Auth`` signing in, refreshing, updating and deleting users against the bundled emulator over
/// HTTP, with the keychain in memory (the same flows over the real keyring are in IntegrationTests).
@Suite struct AuthOverEmulatorTests {
    @Test func signInUpdateAndDeleteThroughAuth() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)

        let created = try await auth.createUser(withEmail: "Hopper@Example.com", password: "cobol-1959").user
        #expect(!created.isAnonymous && created.email == "hopper@example.com")
        #expect(created.providerData.map(\.providerID) == ["password"])
        try auth.signOut()
        let user = try await auth.signIn(withEmail: "hopper@example.com", password: "cobol-1959").user
        #expect(user.uid == created.uid && auth.currentUser === user)

        let change = user.createProfileChangeRequest()
        change.displayName = "Grace"
        change.photoURL = URL(string: "https://example.com/grace.png")
        try await change.commitChanges()
        #expect(user.displayName == "Grace" && user.photoURL?.absoluteString == "https://example.com/grace.png")
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.displayName == "Grace", "the change is saved")

        let removal = user.createProfileChangeRequest()
        removal.photoURL = nil
        try await removal.commitChanges()
        #expect(user.photoURL == nil && user.displayName == "Grace", "only the field set to nil is removed")

        let tokenBefore = try await user.getIDToken()
        try await user.updateEmail(to: "grace@example.com")
        try await user.updatePassword(to: "flow-matic")
        #expect(user.email == "grace@example.com")
        #expect(try await user.getIDToken() != tokenBefore, "email and password changes issue new tokens")
        _ = try await fixture.backend.signIn(email: "grace@example.com", password: "flow-matic", tenantID: nil)

        do {
            try await user.updatePassword(to: "short")
            Issue.record("a weak password was accepted")
        } catch let error as AuthError {
            #expect(error.code == .weakPassword)
        }

        try await user.delete()
        #expect(auth.currentUser == nil)
        #expect(try storedIDToken(in: store) == nil)
        #expect(fixture.emulator.accounts.isEmpty)
    }

    @Test func anAnonymousUserWithAnEmailAndPasswordIsNoLongerAnonymous() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.signInAnonymously().user
        #expect(user.isAnonymous)
        try await user.updateEmail(to: "upgraded@example.com")
        try await user.updatePassword(to: "no-longer-anonymous")
        #expect(!user.isAnonymous && user.email == "upgraded@example.com")
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.isAnonymous == false, "saved")
        let again = try await auth.signInAnonymously().user
        #expect(again.uid != user.uid, "an email user is not returned as the anonymous one")
    }

    @Test func shortLivedTokensAreRefreshedSavedAndAnnounced() async throws {
        // Under five minutes left: every getIDToken() refreshes.
        let fixture = try await EmulatorFixture.start(tokenLifetime: .seconds(120))
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let tokens = ListenerLog()
        auth.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        let user = try await auth.signInAnonymously().user
        let refreshed = try await user.getIDToken()
        #expect(try await fixture.backend.lookUp(idToken: refreshed).uid == user.uid, "the new token is good")
        #expect(try storedIDToken(in: store) == refreshed, "the refreshed token is saved for the other apps")
        #expect(await tokens.events(after: auth) == [nil, user.uid, user.uid], "registration, sign-in, refresh")
    }

    /// The ID token in the app's private item, read as another app would read it.
    private func storedIDToken(in store: InMemoryStore) throws -> String? {
        let key = KeychainKey(service: "firebase_auth_1:42:linux:emulated-app", account: "firebase_auth_1_emulated-app_firebase_user")
        guard let data = try store.data(for: key) else { return nil }
        let record = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (record?["tokens"] as? [String: Any])?["idToken"] as? String
    }

    @Test(arguments: ["revoked", "disabled", "deleted"])
    func aDeadRefreshTokenSignsTheUserOut(_ cause: String) async throws {
        let fixture = try await EmulatorFixture.start(tokenLifetime: .seconds(60))
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let states = ListenerLog()
        let user = try await auth.signInAnonymously().user
        auth.addStateDidChangeListener { _, user in states.record(user) }
        switch cause {
        case "revoked": try fixture.emulator.revokeTokens(of: user.uid)
        case "disabled": try fixture.emulator.setAccount(user.uid, disabled: true)
        default: fixture.emulator.removeAllAccounts()
        }
        do {
            _ = try await user.getIDToken()
            Issue.record("a dead refresh token refreshed")
        } catch let error as AuthError {
            let expected: AuthErrorCode = switch cause {
            case "revoked": .userTokenExpired
            case "disabled": .userDisabled
            default: .userNotFound
            }
            #expect(error.code == expected)
        }
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil, "the stored user is removed")
        #expect(await states.events(after: auth) == [user.uid, nil])
    }

    @Test func aNetworkFailureDuringRefreshKeepsTheUser() async throws {
        let fixture = try await EmulatorFixture.start(tokenLifetime: .seconds(60))
        let auth = try fixture.auth()
        let user = try await auth.signInAnonymously().user
        await fixture.emulator.stop()
        do {
            _ = try await user.getIDToken()
            Issue.record("refreshed with no server")
        } catch let error as AuthError {
            #expect(error.code == .networkError)
        }
        #expect(auth.currentUser === user, "being offline is not a sign-out")
    }

    @Test func refusedSignInsChangeNothing() async throws {
        let fixture = try await EmulatorFixture.start(settings: .init(allowsAnonymousSignUp: false))
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        await #expect(throws: AuthError.self) { _ = try await auth.signInAnonymously() }
        await #expect(throws: AuthError.self) { _ = try await auth.signIn(withEmail: "no@example.com", password: "whatever") }
        #expect(auth.currentUser == nil)
        #expect(try await store.items(in: .all).isEmpty)
    }

    @Test func theEmulatorVariableIsTheDefault() async throws {
        let fixture = try await EmulatorFixture.start()
        let backend = IdentityToolkitBackend(apiKey: "k", environment: ["FIREBASE_AUTH_EMULATOR_HOST": "\(fixture.address)"])
        let options = AuthAppOptions(appName: "env-app", apiKey: "k", appID: "1:42:linux:env", projectID: "demo-keyring-auth")
        let auth = Auth(configuration: AuthConfiguration(options: options, store: InMemoryStore(), backend: backend))
        let user = try await auth.signInAnonymously().user
        #expect(fixture.emulator.accounts.map(\.localId) == [user.uid])
    }

    @Test func useEmulatorDoesNotThrowAsFirebasesButAnUnusableAddressFailsEveryRequest() async throws {
        let apps = TwoApps()
        let custom = Auth(configuration: apps.configuration("custom-backend"))
        custom.useEmulator(withHost: "127.0.0.1", port: 9099)
        _ = try await custom.signInAnonymously()
        #expect(apps.backend.calls.first == "signUpAnonymously", "a backend of the configuration's own is kept")

        for (host, port, reason) in [("bad host", 9099, "bad host"), ("127.0.0.1", 70000, "from 1 to 65535")] {
            let http = Auth(configuration: AuthConfiguration(
                options: AuthAppOptions(appName: "http", apiKey: "k", appID: "1:42:linux:http", projectID: "p"), store: InMemoryStore()))
            http.useEmulator(withHost: host, port: port)
            do {
                _ = try await http.signInAnonymously()
                Issue.record("a request was sent with the unusable emulator address \(host):\(port)")
            } catch let error as AuthError {
                #expect(error.code == .invalidConfiguration && error.message.contains(reason), "\(error)")
            }
            #expect(http.currentUser == nil)
        }
    }
}
