import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

/// Signing in with identity providers' credentials and custom tokens, linking, unlinking and
/// reauthenticating, against the bundled emulator over loopback HTTP with the keychain in memory.
/// The emulator, as Firebase's, takes a plain-JSON or unsigned-JWT ID token naming the IdP user.
@Suite struct SignInWithCredentialTests {
    /// A fake IdP ID token: plain JSON, as Firebase's emulator documents.
    static func idpToken(sub: String, email: String? = nil, verified: Bool = true, name: String? = nil) -> String {
        var claims: [String: Any] = ["sub": sub, "email_verified": verified]
        claims["email"] = email
        claims["name"] = name
        return String(decoding: try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The same claims as an unsigned JWT (`alg: none`).
    static func unsignedJWT(_ claims: [String: Any]) -> String {
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return "\(encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))).\(encode(payload))."
    }

    private func expectCode(
        _ code: AuthErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
        } catch let error as AuthError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected an AuthError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: signIn(with:)

    @Test func aGoogleCredentialCreatesTheAccountThenSignsInToIt() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let token = Self.idpToken(sub: "google-ada", email: "Ada@Example.com", name: "Ada Lovelace")

        let first = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: token, accessToken: ""))
        let user = first.user
        #expect(auth.currentUser === user && !user.isAnonymous)
        #expect(user.email == "ada@example.com" && user.isEmailVerified)
        #expect(user.providerData.map(\.providerID) == ["google.com"] && user.providerData.first?.uid == "google-ada")
        #expect(first.additionalUserInfo?.providerID == "google.com" && first.additionalUserInfo?.isNewUser == true)
        #expect(first.additionalUserInfo?.profile?["name"] as? String == "Ada Lovelace")
        #expect(first.credential?.provider == "google.com" && first.credential?.idToken == token)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.providerData.map(\.providerID) == ["google.com"], "saved")
        #expect(try await user.getIDTokenResult().signInProvider == "google.com")

        try auth.signOut()
        let again = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: token, accessToken: ""))
        #expect(again.user.uid == user.uid && again.additionalUserInfo?.isNewUser == false)
        #expect(fixture.emulator.accounts.count == 1)
    }

    @Test func appleWithANonceGitHubWithAnAccessTokenAndAGenericOIDCProvider() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let apple = OAuthProvider.credential(
            providerID: .apple, idToken: Self.unsignedJWT(["sub": "apple-1", "email": "a@privaterelay.example"]), rawNonce: "n0nce")
        let appleUser = try await auth.signIn(with: apple).user
        #expect(appleUser.providerData.map(\.providerID) == ["apple.com"])

        let github = GitHubAuthProvider.credential(withToken: #"{"sub": "octo-42", "login": "octocat"}"#)
        let gitHub = try await auth.signIn(with: github)
        #expect(gitHub.user.uid != appleUser.uid && gitHub.user.providerData.first?.providerID == "github.com")
        #expect(gitHub.additionalUserInfo?.username == "octocat")
        #expect(gitHub.credential?.accessToken == #"{"sub": "octo-42", "login": "octocat"}"#)

        let oidc = OAuthProvider.credential(providerID: .custom("oidc.corp"), idToken: Self.idpToken(sub: "emp-7"))
        #expect(try await auth.signIn(with: oidc).user.providerData.first?.providerID == "oidc.corp")
        #expect(fixture.emulator.accounts.count == 3)
    }

    @Test func anEmailCredentialTakesThePasswordPath() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let created = try await auth.createUser(withEmail: "grace@example.com", password: "cobol-1959").user
        try auth.signOut()
        let result = try await auth.signIn(with: EmailAuthProvider.credential(withEmail: "grace@example.com", password: "cobol-1959"))
        #expect(result.user.uid == created.uid && result.additionalUserInfo?.providerID == "password" && result.credential == nil)
        await expectCode(.wrongPassword) {
            _ = try await auth.signIn(with: EmailAuthProvider.credential(withEmail: "grace@example.com", password: "wrong-one"))
        }
        #expect(fixture.emulator.receivedRequests.filter { $0.operation == "accounts:signInWithIdp" }.isEmpty)
    }

    @Test func anAccountWithTheSameUnverifiedEmailNeedsLinkingFirst() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        _ = try await auth.createUser(withEmail: "linus@example.com", password: "kernel-91")
        try auth.signOut()
        let credential = GoogleAuthProvider.credential(
            withIDToken: Self.idpToken(sub: "g-linus", email: "linus@example.com", verified: false), accessToken: "")
        do {
            _ = try await auth.signIn(with: credential)
            Issue.record("signed in over an existing account")
        } catch let error as AuthError {
            #expect(error.code == .accountExistsWithDifferentCredential && error.email == "linus@example.com")
            #expect(error.updatedCredential?.provider == "google.com")
            #expect((error as NSError).userInfo[AuthErrors.userInfoEmailKey] as? String == "linus@example.com")
        }
        let stored = try await store.items(in: .all)
        #expect(auth.currentUser == nil && stored.isEmpty, "nothing stored")
    }

    // MARK: signIn(withCustomToken:)

    @Test func aCustomTokenSignsInItsUidWithItsClaimsAcrossRefreshes() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let token = AuthEmulator.unsignedCustomToken(uid: "server-user-1", claims: ["role": "admin", "level": 3])

        let result = try await auth.signIn(withCustomToken: token)
        #expect(result.user.uid == "server-user-1" && !result.user.isAnonymous)
        #expect(result.additionalUserInfo?.isNewUser == true && result.additionalUserInfo?.providerID == "custom")
        let claims = try await result.user.getIDTokenResult()
        #expect(claims.signInProvider == "custom")
        #expect(claims.claims["role"] as? String == "admin" && claims.claims["level"] as? Int == 3)
        #expect(claims.claims["user_id"] as? String == "server-user-1")
        #expect(claims.expirationDate > claims.issuedAtDate && claims.authDate <= claims.issuedAtDate)

        let refreshed = try await result.user.getIDTokenResult(forcingRefresh: true)
        #expect(refreshed.token != claims.token && refreshed.claims["role"] as? String == "admin", "the session keeps its claims")

        try auth.signOut()
        #expect(try await auth.signIn(withCustomToken: token).additionalUserInfo?.isNewUser == false)
        // Plain JSON, as Firebase's emulator takes it.
        #expect(try await auth.signIn(withCustomToken: #"{"uid": "json-user"}"#).user.uid == "json-user")
    }

    @Test func customClaimsSetOnTheAccountAppearAfterTheNextRefresh() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.signInAnonymously().user
        #expect(try await user.getIDTokenResult().claims["tier"] == nil)

        try fixture.emulator.setCustomClaims(["tier": "gold", "groups": ["a", "b"]], of: user.uid)
        #expect(try await user.getIDTokenResult().claims["tier"] == nil, "the saved token predates the claims")
        let refreshed = try await user.getIDTokenResult(forcingRefresh: true)
        #expect(refreshed.claims["tier"] as? String == "gold")
        #expect(refreshed.claims["groups"] as? [any Sendable] != nil)
        #expect(refreshed.signInProvider == "anonymous")

        #expect(throws: AuthEmulatorError.self) { try fixture.emulator.setCustomClaims(["sub": "someone-else"], of: user.uid) }
        #expect(throws: AuthEmulatorError.self) {
            try fixture.emulator.setCustomClaims(["big": String(repeating: "x", count: 1001)], of: user.uid)
        }
        try fixture.emulator.setCustomClaims(nil, of: user.uid)
        #expect(try await user.getIDTokenResult(forcingRefresh: true).claims["tier"] == nil)
    }

    // MARK: Linking, unlinking, reauthenticating

    @Test func linkingAnAnonymousUserToAnEmailMakesItPermanentAndSaved() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.signInAnonymously().user
        let linked = try await user.link(with: EmailAuthProvider.credential(withEmail: "kept@example.com", password: "forever-1"))
        #expect(linked.user === user && !user.isAnonymous && user.email == "kept@example.com")
        #expect(user.providerData.map(\.providerID) == ["password"])
        let stored = try #require(try auth.getStoredUser(forAccessGroup: nil))
        #expect(!stored.isAnonymous && stored.providerData.map(\.providerID) == ["password"], "saved permanent")
        try auth.signOut()
        #expect(try await auth.signIn(withEmail: "kept@example.com", password: "forever-1").user.uid == user.uid)
    }

    @Test func linkingAProviderTwiceOrToAnotherAccountIsRefused() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let google = GoogleAuthProvider.credential(withIDToken: Self.idpToken(sub: "g-shared", email: "shared@example.com"), accessToken: "")
        let owner = try await auth.signIn(with: google).user
        try auth.signOut()

        let user = try await auth.signInAnonymously().user
        let github = GitHubAuthProvider.credential(withToken: #"{"sub": "gh-1"}"#)
        _ = try await user.link(with: github)
        #expect(!user.isAnonymous && user.providerData.map(\.providerID) == ["github.com"])
        let requestsBefore = fixture.emulator.receivedRequests.count
        await expectCode(.providerAlreadyLinked) { _ = try await user.link(with: GitHubAuthProvider.credential(withToken: #"{"sub": "gh-2"}"#)) }
        #expect(fixture.emulator.receivedRequests.count == requestsBefore, "refused before any request")

        do {
            _ = try await user.link(with: google)
            Issue.record("linked a credential another account has")
        } catch let error as AuthError {
            #expect(error.code == .credentialAlreadyInUse)
            let updated = try #require(error.updatedCredential)
            #expect(updated.provider == "google.com")
            // The updated credential signs in to the account that has it, as Firebase documents.
            #expect(try await auth.signIn(with: updated).user.uid == owner.uid)
        }
    }

    @Test func unlinkingRemovesTheMethodAndAnUnknownOneIsNoSuchProvider() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.signIn(with: GitHubAuthProvider.credential(withToken: #"{"sub": "gh-u"}"#)).user
        _ = try await user.link(with: EmailAuthProvider.credential(withEmail: "u@example.com", password: "secret-7"))
        #expect(Set(user.providerData.map(\.providerID)) == ["github.com", "password"])
        try await user.unlink(fromProvider: "github.com")
        #expect(user.providerData.map(\.providerID) == ["password"])
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.providerData.map(\.providerID) == ["password"], "saved")
        await expectCode(.noSuchProvider) { try await user.unlink(fromProvider: "github.com") }
        // The GitHub identity is free again.
        #expect(try await auth.signIn(with: GitHubAuthProvider.credential(withToken: #"{"sub": "gh-u"}"#)).user.uid != user.uid)
    }

    @Test func reauthenticationTakesOnlyTheUsersOwnCredential() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        _ = try await auth.createUser(withEmail: "other@example.com", password: "other-pw")
        try auth.signOut()
        let user = try await auth.createUser(withEmail: "me@example.com", password: "my-password").user
        let before = try await user.getIDToken()

        let again = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "me@example.com", password: "my-password"))
        #expect(again.user === user)
        #expect(try await user.getIDToken() != before, "new tokens")
        await expectCode(.userMismatch) {
            _ = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "other@example.com", password: "other-pw"))
        }
        let accounts = fixture.emulator.accounts.count
        await expectCode(.userMismatch) {
            _ = try await user.reauthenticate(with: GoogleAuthProvider.credential(withIDToken: Self.idpToken(sub: "nobody"), accessToken: ""))
        }
        #expect(fixture.emulator.accounts.count == accounts, "reauthentication creates no account")
        #expect(auth.currentUser === user)
    }

    // MARK: Tenants and language

    @Test func theTenantAndLanguageGoWithEveryRequestThatTakesThem() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        auth.tenantID = "tenant-a"
        auth.languageCode = "fr"
        let user = try await auth.signIn(withCustomToken: AuthEmulator.unsignedCustomToken(uid: "t-user", tenantID: "tenant-a")).user
        #expect(user.tenantID == "tenant-a")
        _ = try await user.link(with: EmailAuthProvider.credential(withEmail: "t@example.com", password: "tenant-pw"))
        _ = try await user.getIDToken(forcingRefresh: true)
        let change = user.createProfileChangeRequest()
        change.displayName = "T"
        try await change.commitChanges()

        let requests = fixture.emulator.receivedRequests
        #expect(requests.allSatisfy { $0.languageCode == "fr" }, "\(requests)")
        let tenanted: Set = ["accounts:signInWithCustomToken", "accounts:signUp", "accounts:update"]
        for request in requests where tenanted.contains(request.operation) {
            #expect(request.tenantID == "tenant-a", "\(request.operation)")
        }
        #expect(Set(requests.map(\.operation)).isSuperset(of: tenanted))
    }

    @Test func aCustomTokenOfAnotherTenantIsRefusedAndNothingIsStored() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        auth.tenantID = "tenant-a"
        await expectCode(.tenantIDMismatch) {
            _ = try await auth.signIn(withCustomToken: AuthEmulator.unsignedCustomToken(uid: "intruder", tenantID: "tenant-b"))
        }
        let stored = try await store.items(in: .all)
        #expect(auth.currentUser == nil && stored.isEmpty && fixture.emulator.accounts.isEmpty)
    }

    // MARK: Bad input

    @Test func badCredentialsAreTypedErrorsAndChangeNothingStored() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let signedIn = try await auth.signInAnonymously().user
        let key = try #require(try await store.items(in: .all).first).key
        let storedBefore = try await store.data(for: key)
        let huge = String(repeating: "a", count: AuthCredential.maximumFieldBytes + 1)

        let refusedLocally: [(AuthCredential, AuthErrorCode)] = [
            (GoogleAuthProvider.credential(withIDToken: "", accessToken: ""), .invalidCredential),
            (GoogleAuthProvider.credential(withIDToken: huge, accessToken: ""), .invalidCredential),
            (GoogleAuthProvider.credential(withIDToken: "line\nbreak", accessToken: ""), .invalidCredential),
            (OAuthProvider.credential(withProviderID: "", idToken: "t", accessToken: nil), .invalidProviderID),
            (OAuthProvider.credential(withProviderID: "password", idToken: "t", accessToken: nil), .invalidProviderID),
            (OAuthProvider.credential(withProviderID: "Google.com", idToken: "t", accessToken: nil), .invalidProviderID),
            (OAuthProvider.credential(withProviderID: "google", idToken: "t", accessToken: nil), .invalidProviderID),
            (EmailAuthProvider.credential(withEmail: "", password: "x"), .missingEmail),
            (EmailAuthProvider.credential(withEmail: "a@example.com", password: ""), .missingPassword),
        ]
        let requestsBefore = fixture.emulator.receivedRequests.count
        for (credential, code) in refusedLocally {
            await expectCode(code) { _ = try await auth.signIn(with: credential) }
            await expectCode(code) { _ = try await signedIn.link(with: credential) }
        }
        await expectCode(.invalidCustomToken) { _ = try await auth.signIn(withCustomToken: "") }
        await expectCode(.invalidCustomToken) { _ = try await auth.signIn(withCustomToken: huge) }
        #expect(fixture.emulator.receivedRequests.count == requestsBefore, "refused before any request")

        // Refused by the service.
        await expectCode(.invalidCredential) { _ = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "garbage", accessToken: "")) }
        await expectCode(.invalidCredential) { _ = try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: #"{"email": "no-sub@example.com"}"#, accessToken: "")) }
        await expectCode(.invalidCustomToken) { _ = try await auth.signIn(withCustomToken: "not.a.jwt") }
        await expectCode(.invalidCustomToken) { _ = try await auth.signIn(withCustomToken: Self.unsignedJWT(["uid": "u", "aud": "someone-else"])) }
        await expectCode(.invalidCustomToken) {
            _ = try await auth.signIn(withCustomToken: AuthEmulator.unsignedCustomToken(uid: "u", claims: ["firebase": "mine"]))
        }

        #expect(auth.currentUser === signedIn && signedIn.isAnonymous && signedIn.providerData.isEmpty)
        #expect(try await store.data(for: key) == storedBefore, "the stored user is unchanged")
        #expect(try await store.items(in: .all).count == 1)
    }

    @Test func theEmulatorAnswersInTheServicesShapesOverRawHTTP() async throws {
        let fixture = try await EmulatorFixture.start()
        let path = "/identitytoolkit.googleapis.com/v1/accounts:"
        let postBody = "providerId=google.com&id_token=%7B%22sub%22%3A%22raw-1%22%7D"
        let (status, first) = try await fixture.post(
            path + "signInWithIdp?key=k", body: #"{"postBody": "\#(postBody)", "requestUri": "http://localhost", "returnSecureToken": true}"#)
        #expect(status == 200 && first["isNewUser"] as? Bool == true && first["federatedId"] as? String == "https://accounts.google.com/raw-1")
        let anonymous = try await fixture.backend.signUpAnonymously(tenantID: nil)
        let linking = #"{"postBody": "\#(postBody)", "requestUri": "http://localhost", "idToken": "\#(anonymous.tokens.idToken)""#
        // Asked for the credential back: the refusal comes in a 200 answer; otherwise as an error.
        let (inBody, answer) = try await fixture.post(path + "signInWithIdp?key=k", body: linking + #", "returnIdpCredential": true}"#)
        #expect(inBody == 200 && answer["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED" && answer["idToken"] == nil)
        let (refused, error) = try await fixture.post(path + "signInWithIdp?key=k", body: linking + "}")
        #expect(refused == 400 && (error["error"] as? [String: Any])?["message"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED")
        let (noURI, _) = try await fixture.post(path + "signInWithIdp?key=k", body: #"{"postBody": "\#(postBody)"}"#)
        #expect(noURI == 400)

        let forbidden = AuthEmulator.unsignedCustomToken(uid: "u", claims: ["auth_time": 1])
        let (claimStatus, claimError) = try await fixture.post(path + "signInWithCustomToken?key=k", body: #"{"token": "\#(forbidden)"}"#)
        #expect(claimStatus == 400 && ((claimError["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("FORBIDDEN_CLAIM") == true)
        let (customStatus, custom) = try await fixture.post(path + "signInWithCustomToken?key=k", body: #"{"token": "{\"uid\": \"plain\"}"}"#)
        #expect(customStatus == 200 && custom["localId"] == nil && custom["idToken"] is String, "no localId, as the service answers")
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let credential = GoogleAuthProvider.credential(withIDToken: "secret-id-token", accessToken: "secret-access-token")
        var dumped = ""
        dump(credential, to: &dumped)
        for text in ["\(credential)", String(reflecting: credential), dumped] {
            #expect(!text.contains("secret") && text.contains("google.com"), "\(text)")
        }
    }
}
