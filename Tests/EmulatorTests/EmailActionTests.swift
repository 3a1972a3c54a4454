import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Synchronization
import Testing

/// Every email action through ``Auth`` against the bundled emulator over HTTP: a code is issued, read from the
/// emulator's code list (as a person reads it from the email), then applied; wrong, expired and used codes get
/// Firebase's errors, and nothing stored changes on a failure.
@Suite struct EmailActionTests {
    /// The one code the emulator made since `before`, and that it is of `requestType` for `email`.
    private func newCode(
        _ fixture: EmulatorFixture, after before: Int, _ requestType: String, for email: String, newEmail: String? = nil
    ) throws -> AuthEmulator.OutOfBandCode {
        let codes = fixture.emulator.outOfBandCodes
        try #require(codes.count == before + 1, "one code was made")
        let code = try #require(codes.last)
        #expect(code.requestType == requestType && code.email == email && code.newEmail == newEmail)
        #expect(code.oobLink.hasPrefix("http://\(fixture.address)/emulator/action?"))
        #expect(ActionCodeURL(link: code.oobLink)?.code == code.oobCode)
        return code
    }

    private func expectFailure(_ code: AuthErrorCode, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code), but it succeeded")
        } catch {
            #expect((error as? AuthError)?.code == code, "\(error)")
        }
    }

    @Test func passwordResetFromCodeToNewPassword() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        _ = try await auth.createUser(withEmail: "lovelace@example.com", password: "analytical")
        try auth.signOut()

        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/after-reset")
        try await auth.sendPasswordReset(withEmail: "lovelace@example.com", actionCodeSettings: settings)
        let code = try newCode(fixture, after: 0, "PASSWORD_RESET", for: "lovelace@example.com")
        let link = try #require(ActionCodeURL(link: code.oobLink))
        #expect(link.operation == .passwordReset && link.continueURL?.absoluteString == "https://example.com/after-reset")

        let info = try await auth.checkActionCode(code.oobCode)
        #expect(info.operation == .passwordReset && info.email == "lovelace@example.com" && info.previousEmail == nil)
        #expect(try await auth.verifyPasswordResetCode(code.oobCode) == "lovelace@example.com", "checking does not use it up")

        await expectFailure(.weakPassword) { () async throws in try await auth.confirmPasswordReset(withCode: code.oobCode, newPassword: "abc") }
        try await auth.confirmPasswordReset(withCode: code.oobCode, newPassword: "difference-engine")
        #expect(fixture.emulator.outOfBandCodes.isEmpty, "a used code leaves the list")

        _ = try await auth.signIn(withEmail: "lovelace@example.com", password: "difference-engine")
        await expectFailure(.wrongPassword) { () async throws in
            _ = try await fixture.backend.signIn(email: "lovelace@example.com", password: "analytical", tenantID: nil)
        }
        await expectFailure(.invalidActionCode) { () async throws in
            try await auth.confirmPasswordReset(withCode: code.oobCode, newPassword: "third-password")
        }
    }

    @Test func wrongExpiredAndUsedCodesGetFirebasesErrors() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "babbage@example.com", password: "difference").user
        let storedBefore = try auth.getStoredUser(forAccessGroup: nil)?.uid

        await expectFailure(.invalidActionCode) { () async throws in _ = try await auth.checkActionCode("no-such-code") }
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode("no-such-code") }
        let sent = fixture.emulator.receivedRequests.count
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode("") }
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode("line\nbreak") }
        #expect(fixture.emulator.receivedRequests.count == sent, "unusable codes are refused before anything is sent")

        // A verification code is no password-reset code, and a reset code applies nothing.
        try await user.sendEmailVerification()
        let verify = try newCode(fixture, after: 0, "VERIFY_EMAIL", for: "babbage@example.com")
        await expectFailure(.invalidActionCode) { () async throws in _ = try await auth.verifyPasswordResetCode(verify.oobCode) }
        await expectFailure(.invalidActionCode) { () async throws in
            try await auth.confirmPasswordReset(withCode: verify.oobCode, newPassword: "new-password")
        }
        try await auth.sendPasswordReset(withEmail: "babbage@example.com")
        let reset = try newCode(fixture, after: 1, "PASSWORD_RESET", for: "babbage@example.com")
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode(reset.oobCode) }

        // Expired codes: Firebase's EXPIRED_OOB_CODE, and nothing changes.
        fixture.emulator.expireOutOfBandCodes()
        await expectFailure(.expiredActionCode) { () async throws in try await auth.applyActionCode(verify.oobCode) }
        await expectFailure(.expiredActionCode) { () async throws in
            try await auth.confirmPasswordReset(withCode: reset.oobCode, newPassword: "new-password")
        }
        #expect(!user.isEmailVerified)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.uid == storedBefore && auth.currentUser === user)
        _ = try await fixture.backend.signIn(email: "babbage@example.com", password: "difference", tenantID: nil)

        // Unknown addresses: told apart, unless email enumeration protection is on.
        await expectFailure(.userNotFound) { () async throws in try await auth.sendPasswordReset(withEmail: "nobody@example.com") }
        fixture.emulator.settings.emailEnumerationProtection = true
        try await auth.sendPasswordReset(withEmail: "nobody@example.com")
        #expect(!fixture.emulator.outOfBandCodes.contains { $0.email == "nobody@example.com" })
        await expectFailure(.invalidEmail) { () async throws in try await auth.sendPasswordReset(withEmail: "not-an-address") }
    }

    @Test func emailVerificationReachesTheStoredUserAndItsToken() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let user = try await auth.createUser(withEmail: "hopper@example.com", password: "cobol-1959").user
        #expect(!user.isEmailVerified)

        try await user.sendEmailVerification()
        let code = try newCode(fixture, after: 0, "VERIFY_EMAIL", for: "hopper@example.com")
        #expect(try await auth.checkActionCode(code.oobCode).operation == .verifyEmail)
        try await auth.applyActionCode(code.oobCode)

        #expect(user.isEmailVerified && auth.currentUser === user)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.isEmailVerified == true, "saved")
        #expect(try await user.getIDTokenResult().claims["email_verified"] as? Bool == true, "the saved token says so too")
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode(code.oobCode) }
    }

    @Test func anAddressChangeIsVerifiedFirstAndEndsTheSession() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "old@example.com", password: "password-1").user
        await expectFailure(.emailAlreadyInUse) { () async throws in
            _ = try await fixture.backend.signUp(email: "taken@example.com", password: "password-2", tenantID: nil)
            try await user.sendEmailVerification(beforeUpdatingEmail: "taken@example.com")
        }

        try await user.sendEmailVerification(beforeUpdatingEmail: "New@Example.com")
        // Listed as firebase-tools lists it: the current address, and the new one beside it.
        let code = try newCode(fixture, after: 0, "VERIFY_AND_CHANGE_EMAIL", for: "old@example.com", newEmail: "new@example.com")
        #expect(user.email == "old@example.com", "nothing changes before the code is applied")
        let info = try await auth.checkActionCode(code.oobCode)
        #expect(info.operation == .verifyAndChangeEmail && info.email == "new@example.com" && info.previousEmail == "old@example.com")

        try await auth.applyActionCode(code.oobCode)
        #expect(auth.currentUser == nil, "the change ended the session, as Firebase's does")
        let again = try await auth.signIn(withEmail: "new@example.com", password: "password-1").user
        #expect(again.uid == user.uid && again.isEmailVerified)
    }

    @Test func anAddressChangedWithoutACodeCanBeTakenBackByItsFirstAddress() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "old@example.com", password: "password-1").user
        try await user.updateEmail(to: "new@example.com")
        // As firebase-tools makes it: a code for the first address, which the email would have gone to.
        let code = try newCode(fixture, after: 0, "RECOVER_EMAIL", for: "old@example.com")
        let info = try await auth.checkActionCode(code.oobCode)
        #expect(info.operation == .recoverEmail && info.email == "old@example.com")

        try await auth.applyActionCode(code.oobCode)
        let again = try await auth.signIn(withEmail: "old@example.com", password: "password-1").user
        #expect(again.uid == user.uid && again.isEmailVerified, "the first address is back, and verified by its owner")
        await expectFailure(.invalidActionCode) { () async throws in try await auth.applyActionCode(code.oobCode) }

        // An anonymous user's first address is no change: no code.
        try auth.signOut()
        let anonymous = try await auth.signInAnonymously().user
        try await anonymous.updateEmail(to: "first@example.com")
        #expect(fixture.emulator.outOfBandCodes.isEmpty)
    }

    @Test func emailLinkSignInCreatesThenSignsInTheAccount() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/finish-sign-in")
        settings.handleCodeInApp = true

        try await auth.sendSignInLink(toEmail: "turing@example.com", actionCodeSettings: settings)
        let first = try newCode(fixture, after: 0, "EMAIL_SIGNIN", for: "turing@example.com")
        #expect(auth.isSignIn(withEmailLink: first.oobLink))
        #expect(!auth.isSignIn(withEmailLink: "https://example.com/finish-sign-in"))
        let wrapped = "https://example.page.link/?link=" + first.oobLink.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(auth.isSignIn(withEmailLink: wrapped), "a Hosting or Dynamic Links URL carrying the link")

        await expectFailure(.invalidEmail) { () async throws in _ = try await auth.signIn(withEmail: "other@example.com", link: first.oobLink) }
        #expect(auth.currentUser == nil)
        let created = try await auth.signIn(withEmail: "turing@example.com", link: first.oobLink)
        #expect(created.additionalUserInfo?.isNewUser == true && created.additionalUserInfo?.providerID == "password")
        let user = created.user
        #expect(user.email == "turing@example.com" && user.isEmailVerified && !user.isAnonymous)
        #expect(user.providerData.map(\.providerID) == ["password"])
        await expectFailure(.invalidActionCode) { () async throws in _ = try await auth.signIn(withEmail: "turing@example.com", link: first.oobLink) }
        #expect(auth.currentUser === user, "a failed sign-in changes nothing")

        try auth.signOut()
        try await auth.sendSignInLink(toEmail: "turing@example.com", actionCodeSettings: settings)
        let second = try newCode(fixture, after: 0, "EMAIL_SIGNIN", for: "turing@example.com")
        let credential = EmailAuthProvider.credential(withEmail: "turing@example.com", link: second.oobLink)
        let again = try await auth.signIn(with: credential)
        #expect(again.user.uid == user.uid && again.additionalUserInfo?.isNewUser == false)

        // An export keeps the account an email-link account, as Firebase's lists it.
        let copy = AuthEmulator(configuration: .init(port: 0, logger: EmulatorFixture.quietLogger))
        try copy.importAccounts(fixture.emulator.exportAccounts())
        #expect(copy.accounts.first?.emailLinkSignIn == true && copy.accounts.first?.email == "turing@example.com")

        // The link of another action is no sign-in link.
        try await auth.sendPasswordReset(withEmail: "turing@example.com")
        let reset = try #require(fixture.emulator.outOfBandCodes.last)
        #expect(!auth.isSignIn(withEmailLink: reset.oobLink))
        await expectFailure(.invalidActionCode) { () async throws in _ = try await auth.signIn(withEmail: "turing@example.com", link: reset.oobLink) }
    }

    @Test func anEmailLinkMakesAnAnonymousUserPermanent() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let guest = try await auth.signInAnonymously().user
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/link")
        settings.handleCodeInApp = true
        try await auth.sendSignInLink(toEmail: "guest@example.com", actionCodeSettings: settings)
        let code = try newCode(fixture, after: 0, "EMAIL_SIGNIN", for: "guest@example.com")

        _ = try await guest.link(with: EmailAuthProvider.credential(withEmail: "guest@example.com", link: code.oobLink))
        #expect(!guest.isAnonymous && guest.email == "guest@example.com" && guest.isEmailVerified)
        #expect(fixture.emulator.accounts.count == 1, "linked, not a new account")
    }

    @Test func completionHandlerFormsReportTheResultOrTheError() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        _ = try await auth.createUser(withEmail: "noether@example.com", password: "invariant")
        let sent: Error? = await withCheckedContinuation { continuation in
            auth.sendPasswordReset(withEmail: "noether@example.com") { continuation.resume(returning: $0) }
        }
        #expect(sent == nil)
        let code = try #require(fixture.emulator.outOfBandCodes.last)
        let (email, error): (String?, Error?) = await withCheckedContinuation { continuation in
            auth.verifyPasswordResetCode(code.oobCode) { continuation.resume(returning: ($0, $1)) }
        }
        #expect(email == "noether@example.com" && error == nil)
        let wrong: Error? = await withCheckedContinuation { continuation in
            auth.applyActionCode("no-such-code") { continuation.resume(returning: $0) }
        }
        #expect((wrong as? AuthError)?.code == .invalidActionCode)
    }

    @Test func theUsersVerificationCompletionFormsSendTheirCodesOrReportTheError() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "meitner@example.com", password: "fission-1").user
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/verified")
        let sent: [Error?] = [
            await withCheckedContinuation { done in user.sendEmailVerification { done.resume(returning: $0) } },
            await withCheckedContinuation { done in user.sendEmailVerification(with: settings) { done.resume(returning: $0) } },
            await withCheckedContinuation { done in
                user.sendEmailVerification(beforeUpdatingEmail: "lise@example.com") { done.resume(returning: $0) }
            },
        ]
        #expect(sent.allSatisfy { $0 == nil }, "\(sent)")
        #expect(fixture.emulator.outOfBandCodes.map(\.requestType) == ["VERIFY_EMAIL", "VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL"])
        let refused: Error? = await withCheckedContinuation { done in
            user.sendEmailVerification(beforeUpdatingEmail: "not an address") { done.resume(returning: $0) }
        }
        #expect((refused as? AuthError)?.code == .invalidEmail)
        #expect(fixture.emulator.outOfBandCodes.count == 3 && user.email == "meitner@example.com")
    }

    /// Two running apps of a group over one store: a verification or a password reset that one app applies
    /// reaches the other through the stored record (live sync).
    @Test func aVerifiedEmailAndAResetPasswordReachEveryAppOfTheGroup() async throws {
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let choices = AccessGroupChoices.inMemory()
        func app(_ name: String) throws -> Auth {
            let options = AuthAppOptions(appName: name, apiKey: fixture.backend.apiKey, appID: "1:42:linux:\(name)", projectID: "demo-keyring-auth")
            let auth = Auth(configuration: AuthConfiguration(options: options, store: store, backend: fixture.backend, groupChoices: choices))
            try auth.useUserAccessGroup(TwoApps.group)
            return auth
        }
        let a = try app("A"), b = try app("B")
        let aStates = ListenerLog(), bTokens = ListenerLog()
        a.addStateDidChangeListener { _, user in aStates.record(user) }
        b.addIDTokenDidChangeListener { _, user in bTokens.record(user) }
        #expect(try await aStates.next() == nil)
        #expect(try await bTokens.next() == nil)

        let user = try await b.createUser(withEmail: "franklin@example.com", password: "photo-51").user
        #expect(try await aStates.next() == user.uid)
        #expect(try await bTokens.next() == user.uid)
        #expect(a.currentUser?.isEmailVerified == false)

        // B sends the verification; A applies it: A saves the verified user, and B adopts it (a new token).
        try await user.sendEmailVerification()
        let verify = try newCode(fixture, after: 0, "VERIFY_EMAIL", for: "franklin@example.com")
        try await a.applyActionCode(verify.oobCode)
        #expect(a.currentUser?.isEmailVerified == true)
        #expect(try await bTokens.next() == user.uid)
        #expect(b.currentUser?.isEmailVerified == true, "B follows the stored record")
        #expect(try await b.currentUser?.getIDTokenResult().claims["email_verified"] as? Bool == true)

        // A resets the password: the session ended, so every app of the group is signed out at once.
        try await a.sendPasswordReset(withEmail: "franklin@example.com")
        let reset = try newCode(fixture, after: 0, "PASSWORD_RESET", for: "franklin@example.com")
        try await b.confirmPasswordReset(withCode: reset.oobCode, newPassword: "double-helix")
        #expect(b.currentUser == nil)
        _ = try await aStates.next { $0 == nil }
        #expect(a.currentUser == nil)
        #expect(try a.getStoredUser(forAccessGroup: TwoApps.group) == nil)
    }
}

/// The emulator's email action endpoints as another client sees them over HTTP.
@Suite struct EmulatorOutOfBandCodeTests {
    @Test func theCodeListIsServedAsFirebasesEmulatorServesIt() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        auth.languageCode = "fr"
        _ = try await auth.createUser(withEmail: "meitner@example.com", password: "fission")
        try await auth.sendPasswordReset(withEmail: "meitner@example.com")
        #expect(fixture.emulator.receivedRequests.last == AuthEmulator.ReceivedRequest(operation: "accounts:sendOobCode", languageCode: "fr"))

        var request = URLRequest(url: URL(string: "http://\(fixture.address)/emulator/v1/projects/demo-keyring-auth/oobCodes")!)
        request.httpMethod = "GET"
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codes = try #require(object["oobCodes"] as? [[String: String]])
        let code = try #require(fixture.emulator.outOfBandCodes.first)
        #expect(codes == [["email": "meitner@example.com", "requestType": "PASSWORD_RESET", "oobCode": code.oobCode, "oobLink": code.oobLink]])
        #expect(code.oobLink.contains("mode=resetPassword") && code.oobLink.contains("apiKey=AIzaEmulatorKey"))

        let (status, refusal) = try await fixture.post(
            "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=k", body: #"{"requestType": "NOT_A_TYPE", "email": "a@example.com"}"#)
        #expect(status == 400 && ((refusal["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("INVALID_REQ_TYPE") == true)
    }

    /// What a person's browser gets for each link: a verification is applied, the others say how to finish.
    @Test func followingALinkInABrowserAppliesAVerificationAndExplainsTheRest() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "johnson@example.com", password: "trajectory").user
        try await user.sendEmailVerification()
        try await auth.sendPasswordReset(withEmail: "johnson@example.com")
        let codes = fixture.emulator.outOfBandCodes
        try #require(codes.count == 2)
        func open(_ link: String) async throws -> (Int, String, String?) {
            let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: link)))
            let http = response as? HTTPURLResponse
            return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "Content-Type"))
        }
        let (status, page, type) = try await open(codes[0].oobLink)
        #expect(status == 200 && page.contains("johnson@example.com is verified") && type?.hasPrefix("text/plain") == true)
        #expect(fixture.emulator.accounts.first?.emailVerified == true)
        let (again, usedPage, _) = try await open(codes[0].oobLink)
        #expect(again == 400 && usedPage.contains("used already"))
        let (resetStatus, resetPage, _) = try await open(codes[1].oobLink)
        #expect(resetStatus == 200 && resetPage.contains("keyring-auth reset-password --code-stdin --password-stdin"))
        #expect(fixture.emulator.outOfBandCodes.map(\.oobCode) == [codes[1].oobCode], "only the verification was used")
    }

    @Test func theEmulatorTellsItsOwnerOfEachCode() async throws {
        let made = Mutex<[AuthEmulator.OutOfBandCode]>([])
        let emulator = AuthEmulator(configuration: .init(
            port: 0, logger: EmulatorFixture.quietLogger, onOutOfBandCode: { code in made.withLock { $0.append(code) } }))
        let address = try await emulator.start()
        let backend = IdentityToolkitBackend(apiKey: "k", endpoint: try .emulator(host: address.host, port: address.port))
        _ = try await backend.signUp(email: "curie@example.com", password: "radium", tenantID: nil)
        try await backend.sendOutOfBandCode(OutOfBandCodeRequest(kind: .passwordReset, email: "curie@example.com"), context: AuthRequestContext())
        #expect(made.withLock { $0 } == emulator.outOfBandCodes && made.withLock { $0.count } == 1)
        await emulator.stop()
    }
}
