import Foundation
import KeyringAuth
import KeyringTestSupport
import KeyringAuthEmulator
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``IdentityToolkitBackend`` against the bundled emulator over real loopback HTTP: every endpoint
/// and every error the emulator can give, mapped to Firebase's codes.
@Suite struct IdentityToolkitBackendOverEmulatorTests {
    private func expectCode(
        _ code: AuthErrorCode, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
        } catch let error as AuthError {
            #expect(error.code == code, comment, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected an AuthError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyEndpointAnswersThroughTheClient() async throws {
        let fixture = try await EmulatorFixture.start()
        let backend = fixture.backend

        let anonymous = try await backend.signUpAnonymously(tenantID: nil)
        #expect(try await backend.lookUp(idToken: anonymous.tokens.idToken).uid == anonymous.uid)

        let created = try await backend.signUp(email: "Ada@Example.com", password: "analytical", tenantID: nil)
        let signedIn = try await backend.signIn(email: "ada@example.com", password: "analytical", tenantID: nil)
        #expect(signedIn.uid == created.uid, "emails are matched without regard to case")
        var account = try await backend.lookUp(idToken: signedIn.tokens.idToken)
        #expect(account.email == "ada@example.com")
        #expect(account.providers.map(\.providerID) == ["password"])
        #expect(account.creationDate != nil && account.lastSignInDate != nil)

        let profileTokens = try await backend.update(
            idToken: signedIn.tokens.idToken,
            changes: AccountChanges(displayName: "Ada", photoURL: URL(string: "https://example.com/ada.png")))
        #expect(profileTokens == nil, "a profile change issues no tokens")
        account = try await backend.lookUp(idToken: signedIn.tokens.idToken)
        #expect(account.displayName == "Ada" && account.photoURL?.absoluteString == "https://example.com/ada.png")

        _ = try await backend.update(idToken: signedIn.tokens.idToken, changes: AccountChanges(deletedAttributes: [.displayName, .photoURL]))
        account = try await backend.lookUp(idToken: signedIn.tokens.idToken)
        #expect(account.displayName == nil && account.photoURL == nil)

        let emailTokens = try #require(try await backend.update(
            idToken: signedIn.tokens.idToken, changes: AccountChanges(email: "lovelace@example.com")))
        #expect(try await backend.lookUp(idToken: emailTokens.idToken).email == "lovelace@example.com")

        let passwordTokens = try #require(try await backend.update(
            idToken: emailTokens.idToken, changes: AccountChanges(password: "difference engine")))
        _ = try await backend.signIn(email: "lovelace@example.com", password: "difference engine", tenantID: nil)
        await expectCode(.userTokenExpired, "a password change ends the older sessions") {
            _ = try await backend.refresh(refreshToken: signedIn.tokens.refreshToken)
        }

        let refreshed = try await backend.refresh(refreshToken: passwordTokens.refreshToken)
        #expect(refreshed.expirationDate.timeIntervalSinceNow > 3000)
        #expect(try await backend.lookUp(idToken: refreshed.idToken).uid == created.uid)

        try await backend.delete(idToken: refreshed.idToken)
        await expectCode(.userNotFound) { _ = try await backend.lookUp(idToken: refreshed.idToken) }
        await expectCode(.userNotFound) { _ = try await backend.refresh(refreshToken: refreshed.refreshToken) }
        #expect(fixture.emulator.accounts.map(\.localId) == [anonymous.uid])
    }

    @Test func signUpAndSignInRefusalsMapToFirebasesCodes() async throws {
        let fixture = try await EmulatorFixture.start()
        let backend = fixture.backend
        _ = try await backend.signUp(email: "taken@example.com", password: "secret1", tenantID: nil)

        await expectCode(.weakPassword) { _ = try await backend.signUp(email: "new@example.com", password: "12345", tenantID: nil) }
        await expectCode(.emailAlreadyInUse) { _ = try await backend.signUp(email: "TAKEN@example.com", password: "secret1", tenantID: nil) }
        await expectCode(.invalidEmail) { _ = try await backend.signUp(email: "not-an-address", password: "secret1", tenantID: nil) }
        await expectCode(.missingPassword) { _ = try await backend.signIn(email: "taken@example.com", password: "", tenantID: nil) }
        await expectCode(.wrongPassword) { _ = try await backend.signIn(email: "taken@example.com", password: "wrong!", tenantID: nil) }
        await expectCode(.userNotFound) { _ = try await backend.signIn(email: "nobody@example.com", password: "secret1", tenantID: nil) }

        fixture.emulator.settings.emailEnumerationProtection = true
        await expectCode(.invalidCredential) { _ = try await backend.signIn(email: "taken@example.com", password: "wrong!", tenantID: nil) }
        await expectCode(.invalidCredential) { _ = try await backend.signIn(email: "nobody@example.com", password: "secret1", tenantID: nil) }

        fixture.emulator.settings.allowsAnonymousSignUp = false
        await expectCode(.operationNotAllowed) { _ = try await backend.signUpAnonymously(tenantID: nil) }
    }

    @Test func tokenRefusalsMapToFirebasesCodes() async throws {
        let fixture = try await EmulatorFixture.start()
        let backend = fixture.backend
        let user = try await backend.signUp(email: "grace@example.com", password: "compiler", tenantID: nil)

        await expectCode(.invalidUserToken) { _ = try await backend.lookUp(idToken: "not.a.jwt") }
        await expectCode(.invalidUserToken) { _ = try await backend.lookUp(idToken: "") }
        await expectCode(.invalidUserToken) { _ = try await backend.refresh(refreshToken: "garbage") }

        try fixture.emulator.setAccount(user.uid, disabled: true)
        await expectCode(.userDisabled) { _ = try await backend.refresh(refreshToken: user.tokens.refreshToken) }
        await expectCode(.userDisabled) { _ = try await backend.lookUp(idToken: user.tokens.idToken) }
        await expectCode(.userDisabled) { _ = try await backend.signIn(email: "grace@example.com", password: "compiler", tenantID: nil) }
        try fixture.emulator.setAccount(user.uid, disabled: false)

        try fixture.emulator.revokeTokens(of: user.uid)
        await expectCode(.userTokenExpired) { _ = try await backend.refresh(refreshToken: user.tokens.refreshToken) }
        let again = try await backend.signIn(email: "grace@example.com", password: "compiler", tenantID: nil)
        _ = try await backend.refresh(refreshToken: again.tokens.refreshToken)
    }

    @Test func aMissingAPIKeyIsRefused() async throws {
        let fixture = try await EmulatorFixture.start(apiKey: "")
        await expectCode(.invalidAPIKey) { _ = try await fixture.backend.signUpAnonymously(tenantID: nil) }
    }

    @Test func tokensFromAnotherProjectAreRefused() async throws {
        let ours = try await EmulatorFixture.start()
        let other = AuthEmulator(configuration: .init(port: 0, projectID: "another-project", logger: EmulatorFixture.quietLogger))
        let address = try await other.start()
        let otherBackend = IdentityToolkitBackend(apiKey: "k", endpoint: try .emulator(host: address.host, port: address.port))
        let foreign = try await otherBackend.signUpAnonymously(tenantID: nil)
        await expectCode(.invalidUserToken) { _ = try await ours.backend.lookUp(idToken: foreign.tokens.idToken) }
        await other.stop()
    }

    // MARK: Transport

    @Test func nothingListeningIsANetworkError() async throws {
        let fixture = try await EmulatorFixture.start()
        await fixture.emulator.stop()
        await expectCode(.networkError) { _ = try await fixture.backend.signUpAnonymously(tenantID: nil) }
    }

    @Test func aServerThatNeverAnswersIsANetworkErrorWithinTheLimit() async throws {
        let silent = try RawTCP.silentListener()
        defer { close(silent.fd) }
        let backend = IdentityToolkitBackend(
            apiKey: "k", endpoint: try .emulator(host: "127.0.0.1", port: silent.port), requestTimeout: .seconds(1))
        do {
            _ = try await backend.signUpAnonymously(tenantID: nil)
            Issue.record("a silent server answered")
        } catch {
                        #expect(error.code == .networkError, "\(error)")
        }
    }
}
