import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// The emulator's TOTP second factor over REST, as Identity Platform answers: enrollment (start, finalize,
/// withdraw), a first factor answered with a pending credential instead of tokens, and the second factor.
@Suite struct MultiFactorEmulatorTests {
    private static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    private static let v2 = "/identitytoolkit.googleapis.com/v2/accounts/"

    /// An emulator with a verified email/password account `ada@example.com`, and that account's ID token.
    private func verifiedAccount() async throws -> (EmulatorFixture, String) {
        let fixture = try await EmulatorFixture.start()
        try fixture.emulator.importAccounts(Data(#"""
            {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical"}]}
            """#.utf8))
        let (status, signedIn) = try await fixture.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
        #expect(status == 200)
        return (fixture, try #require(signedIn["idToken"] as? String))
    }

    private static func message(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

    /// Enrolls a TOTP factor for `idToken`; returns its base32 secret, the new ID token, and the code and time it
    /// enrolled with.
    private func enroll(
        _ fixture: EmulatorFixture, _ idToken: String
    ) async throws -> (secret: String, idToken: String, code: String, time: Date) {
        let (status, started) = try await fixture.post(Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(idToken)", "totpEnrollmentInfo": {}}"#)
        #expect(status == 200, "\(started)")
        let info = try #require(started["totpSessionInfo"] as? [String: Any])
        #expect(info["hashingAlgorithm"] as? String == "SHA1" && info["verificationCodeLength"] as? Int == 6 && info["periodSec"] as? Int == 30)
        let secret = try #require(info["sharedSecretKey"] as? String)
        let session = try #require(info["sessionInfo"] as? String)
        func finalize(_ code: String) async throws -> (Int, [String: Any]) {
            try await fixture.post(
                Self.v2 + "mfaEnrollment:finalize?key=k",
                body: #"{"idToken": "\#(idToken)", "displayName": "phone app", "totpVerificationInfo": {"sessionInfo": "\#(session)", "verificationCode": "\#(code)"}}"#)
        }
        let time = Date()
        let current = try #require(TOTP.code(base32Secret: secret, at: time))
        let wrong = String(format: "%06d", (Int(current)! + 500_000) % 1_000_000)
        let refused = try await finalize(wrong)
        #expect(refused.0 == 400 && Self.message(refused.1) == "INVALID_CODE", "\(refused.1)")
        let (finalStatus, finalized) = try await finalize(current)
        #expect(finalStatus == 200, "\(finalized)")
        return (secret, try #require(finalized["idToken"] as? String), current, time)
    }

    /// A time whose code the emulator takes after an enrollment at `enrolled`: a later time step than the
    /// enrollment's (a code is accepted once), within its window (the step before now, now, the step after).
    private static func timeAfter(_ enrolled: Date) -> Date {
        max(enrolled.addingTimeInterval(30), Date().addingTimeInterval(-29))
    }

    @Test func aTOTPFactorIsEnrolledThenAskedForAtEverySignInUntilWithdrawn() async throws {
        let (fixture, idToken) = try await verifiedAccount()
        let (secret, enrolledToken, enrollmentCode, enrolledAt) = try await enroll(fixture, idToken)

        let (_, lookup) = try await fixture.post(Self.v1 + "lookup?key=k", body: #"{"idToken": "\#(enrolledToken)"}"#)
        let user = try #require((lookup["users"] as? [[String: Any]])?.first)
        let factor = try #require((user["mfaInfo"] as? [[String: Any]])?.first)
        #expect(factor["displayName"] as? String == "phone app" && factor["totpInfo"] != nil && factor["phoneInfo"] == nil)
        let enrollmentID = try #require(factor["mfaEnrollmentId"] as? String)
        #expect((factor["enrolledAt"] as? String)?.hasSuffix("Z") == true)
        #expect(!String(describing: lookup).contains(secret), "the secret is never listed")

        // The first factor passes: no tokens, a pending credential and the factors to choose from.
        let (status, pending) = try await fixture.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
        #expect(status == 200 && pending["idToken"] == nil && pending["refreshToken"] == nil)
        let credential = try #require(pending["mfaPendingCredential"] as? String)
        #expect((pending["mfaInfo"] as? [[String: Any]])?.first?["mfaEnrollmentId"] as? String == enrollmentID)

        func finalizeSignIn(_ code: String, enrollment: String = enrollmentID) async throws -> (Int, [String: Any]) {
            try await fixture.post(
                Self.v2 + "mfaSignIn:finalize?key=k",
                body: #"{"mfaPendingCredential": "\#(credential)", "mfaEnrollmentId": "\#(enrollment)", "totpVerificationInfo": {"verificationCode": "\#(code)"}}"#)
        }
        // A later time step's code: a code is accepted once (RFC 6238, 5.2), the enrollment's too.
        #expect(Self.message(try await finalizeSignIn(enrollmentCode).1) == "INVALID_CODE", "the code that enrolled the factor")
        let code = try #require(TOTP.code(base32Secret: secret, at: Self.timeAfter(enrolledAt)))
        #expect(Self.message(try await finalizeSignIn("000000" == code ? "111111" : "000000").1) == "INVALID_CODE")
        #expect(Self.message(try await finalizeSignIn(code, enrollment: "nope").1) == "MFA_ENROLLMENT_NOT_FOUND")
        let (signedInStatus, signedIn) = try await finalizeSignIn(code)
        #expect(signedInStatus == 200 && signedIn["idToken"] is String && signedIn["refreshToken"] is String, "\(signedIn)")
        #expect(Self.message(try await finalizeSignIn(code).1) == "INVALID_MFA_PENDING_CREDENTIAL", "a pending credential is used once")

        // Withdrawn: the password alone signs in again.
        let session = try #require(signedIn["idToken"] as? String)
        let (withdrawStatus, withdrawn) = try await fixture.post(
            Self.v2 + "mfaEnrollment:withdraw?key=k", body: #"{"idToken": "\#(session)", "mfaEnrollmentId": "\#(enrollmentID)"}"#)
        #expect(withdrawStatus == 200 && withdrawn["idToken"] is String)
        let (_, plain) = try await fixture.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
        #expect(plain["idToken"] is String && plain["mfaPendingCredential"] == nil)
    }

    @Test func enrollmentNeedsAVerifiedEmailAndAFirstFactorThatCanCarryASecond() async throws {
        let fixture = try await EmulatorFixture.start()
        let (_, anonymous) = try await fixture.post(Self.v1 + "signUp?key=k", body: "{}")
        let anonymousToken = try #require(anonymous["idToken"] as? String)
        let (_, refused) = try await fixture.post(Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(anonymousToken)", "totpEnrollmentInfo": {}}"#)
        #expect(Self.message(refused)?.hasPrefix("UNSUPPORTED_FIRST_FACTOR") == true, "\(refused)")

        let (_, unverified) = try await fixture.post(Self.v1 + "signUp?key=k", body: #"{"email": "bob@example.com", "password": "secret1"}"#)
        let unverifiedToken = try #require(unverified["idToken"] as? String)
        let (_, needsVerification) = try await fixture.post(
            Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(unverifiedToken)", "totpEnrollmentInfo": {}}"#)
        #expect(Self.message(needsVerification)?.hasPrefix("UNVERIFIED_EMAIL") == true)
        // The account is checked before the factor, as in firebase-tools; once verified, a phone factor needs its number.
        let (_, phoneUnverified) = try await fixture.post(
            Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(unverifiedToken)", "phoneEnrollmentInfo": {}}"#)
        #expect(Self.message(phoneUnverified)?.hasPrefix("UNVERIFIED_EMAIL") == true, "\(phoneUnverified)")
        let uid = try #require(unverified["localId"] as? String)
        let (verifiedStatus, _) = try await fixture.post(
            Self.v1 + "update", body: #"{"localId": "\#(uid)", "emailVerified": true}"#, bearer: "owner")
        #expect(verifiedStatus == 200)
        let (_, signedIn) = try await fixture.post(
            Self.v1 + "signInWithPassword?key=k", body: #"{"email": "bob@example.com", "password": "secret1"}"#)
        let verifiedToken = try #require(signedIn["idToken"] as? String)
        let (_, phone) = try await fixture.post(
            Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(verifiedToken)", "phoneEnrollmentInfo": {}}"#)
        #expect(Self.message(phone) == "INVALID_PHONE_NUMBER : Invalid format.", "\(phone)")
    }
}

/// Signing in through `Auth` to an account with a TOTP second factor: `secondFactorRequired` with Firebase's
/// resolver, then the code, all or nothing.
@Suite struct SecondFactorSignInTests {
    /// An emulator holding `ada@example.com` with one TOTP factor named "phone app"; its base32 secret.
    private func accountWithFactor() async throws -> (EmulatorFixture, String) {
        let fixture = try await EmulatorFixture.start()
        try fixture.emulator.importAccounts(Data(#"""
            {"kind": "identitytoolkit#DownloadAccountResponse",
             "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical"}]}
            """#.utf8))
        let (_, signedIn) = try await fixture.post(
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
        let idToken = try #require(signedIn["idToken"] as? String)
        let (_, started) = try await fixture.post(
            "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k", body: #"{"idToken": "\#(idToken)", "totpEnrollmentInfo": {}}"#)
        let info = try #require(started["totpSessionInfo"] as? [String: Any])
        let secret = try #require(info["sharedSecretKey"] as? String)
        // The previous time step's code (still accepted, for clock skew): the current one is left for the sign-in,
        // since a code is accepted once.
        let code = try #require(TOTP.code(base32Secret: secret, at: Date().addingTimeInterval(-30)))
        let (status, _) = try await fixture.post(
            "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize?key=k",
            body: #"{"idToken": "\#(idToken)", "displayName": "phone app", "totpVerificationInfo": {"sessionInfo": "\#(info["sessionInfo"] as? String ?? "")", "verificationCode": "\#(code)"}}"#)
        #expect(status == 200)
        return (fixture, secret)
    }

    @Test func theFirstFactorGivesAResolverAndTheCodeFinishesTheSignInIntoTheGroup() async throws {
        let (fixture, secret) = try await accountWithFactor()
        let auth = try fixture.auth()
        try auth.useUserAccessGroup("TEAMID.com.example.mfa")
        var caught: AuthError?
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "analytical")
            Issue.record("signed in without the second factor")
        } catch let error as AuthError {
            caught = error
        }
        let error = try #require(caught)
        #expect(error.code == .secondFactorRequired && (error as NSError).code == 17078)
        let resolver = try #require(error.multiFactorResolver)
        #expect((error as NSError).userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver === resolver)
        #expect(resolver.auth === auth && resolver.hints.count == 1)
        let hint = try #require(resolver.hints.first)
        #expect(hint.factorID == TOTPMultiFactorID && hint.displayName == "phone app")
        #expect(abs(hint.enrollmentDate.timeIntervalSinceNow) < 600)
        let storedBefore = try auth.getStoredUser(forAccessGroup: "TEAMID.com.example.mfa")
        #expect(auth.currentUser == nil && storedBefore == nil, "nothing stored yet")

        // A wrong code: Firebase's error, nothing changed; the resolver can be used again.
        let code = try #require(TOTP.code(base32Secret: secret, at: Date()))
        let wrong = String(format: "%06d", (Int(code)! + 500_000) % 1_000_000)
        do {
            _ = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: wrong))
            Issue.record("a wrong code signed in")
        } catch let error as AuthError {
            #expect(error.code == .invalidVerificationCode, "\(error)")
        }
        let storedAfterWrongCode = try auth.getStoredUser(forAccessGroup: "TEAMID.com.example.mfa")
        #expect(auth.currentUser == nil && storedAfterWrongCode == nil)

        let result = try await resolver.resolveSignIn(
            with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: code))
        #expect(result.user.uid == "ada" && result.user.email == "ada@example.com" && auth.currentUser === result.user)
        #expect(try auth.getStoredUser(forAccessGroup: "TEAMID.com.example.mfa")?.uid == "ada", "saved for every app of the group")
        // The token says which factor finished the sign-in, as Firebase's do, also once refreshed.
        for forcingRefresh in [false, true] {
            let token = try await result.user.getIDTokenResult(forcingRefresh: forcingRefresh)
            #expect(token.signInSecondFactor == "totp", "refreshed: \(forcingRefresh)")
            #expect((token.claims["firebase"] as? [String: Any])?["second_factor_identifier"] as? String == hint.uid, "refreshed: \(forcingRefresh)")
        }
    }

    @Test func aTOTPAssertionForAPhoneFactorOrAnotherFactorIsATypedErrorNotACrash() async throws {
        let (fixture, _) = try await accountWithFactor()
        let auth = try fixture.auth()
        let resolver = MultiFactorResolver(
            session: MultiFactorSession(pendingCredential: "pending", callbackQueue: auth.configuration.callbackQueue),
            hints: [MultiFactorInfo(uid: "sms-1", displayName: "work phone", enrollmentDate: Date(), factorID: PhoneMultiFactorID)],
            auth: auth, method: .password)
        await #expect { try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "sms-1", oneTimePassword: "123456")) }
            throws: { ($0 as? AuthError)?.code == .missingMultiFactorInfo && "\($0)".contains("PhoneMultiFactorGenerator") }
        await #expect { try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "nope", oneTimePassword: "123456")) }
            throws: { ($0 as? AuthError)?.code == .multiFactorInfoNotFound }
        #expect(fixture.emulator.receivedRequests.allSatisfy { $0.operation != "mfaSignIn:finalize" }, "nothing was sent")
    }
}

/// Enrolling and withdrawing a TOTP factor through `User.multiFactor`, seen by another app of the group.
@Suite struct SecondFactorEnrollmentTests {
    @Test func aFactorEnrolledInOneAppIsListedInEveryAppOfTheGroupThenWithdrawn() async throws {
        let fixture = try await EmulatorFixture.start()
        try fixture.emulator.importAccounts(Data(#"""
            {"kind": "identitytoolkit#DownloadAccountResponse",
             "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical"}]}
            """#.utf8))
        let store = InMemoryStore()
        let (appA, appB) = (try fixture.auth(appName: "app-a", store: store), try fixture.auth(appName: "app-b", store: store))
        for app in [appA, appB] { try app.useUserAccessGroup("TEAMID.com.example.mfa") }
        let user = try await appA.signIn(withEmail: "ada@example.com", password: "analytical").user
        #expect(user.multiFactor.enrolledFactors.isEmpty)
        let tokensOfB = ListenerLog()
        appB.addIDTokenDidChangeListener { _, user in tokensOfB.record(user) }
        _ = try await tokensOfB.next(where: { $0 == "ada" })

        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        let key = secret.sharedSecretKey()
        #expect(secret.generateQRCodeURL(withAccountName: "ada@example.com", issuer: "Example")
            == "otpauth://totp/Example:ada@example.com?secret=\(key)&issuer=Example&algorithm=SHA1&digits=6")
        #expect(!"\(secret)".contains(key), "the description leaves the secret out")
        let code = try #require(TOTP.code(base32Secret: key, at: Date()))
        let wrong = String(format: "%06d", (Int(code)! + 500_000) % 1_000_000)
        await #expect { try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: wrong), displayName: "x") }
            throws: { ($0 as? AuthError)?.code == .invalidVerificationCode }
        #expect(user.multiFactor.enrolledFactors.isEmpty && appB.currentUser?.multiFactor.enrolledFactors.isEmpty == true)

        try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code), displayName: "phone app")
        let enrolled = user.multiFactor.enrolledFactors
        #expect(enrolled.count == 1 && enrolled.first?.displayName == "phone app" && enrolled.first?.factorID == TOTPMultiFactorID)
        // App B, live: its user lists the same factor.
        _ = try await tokensOfB.next(where: { _ in appB.currentUser?.multiFactor.enrolledFactors == enrolled })
        #expect(appB.currentUser?.multiFactor.enrolledFactors == enrolled)

        try await user.multiFactor.unenroll(with: try #require(enrolled.first))
        #expect(user.multiFactor.enrolledFactors.isEmpty)
        _ = try await tokensOfB.next(where: { _ in appB.currentUser?.multiFactor.enrolledFactors.isEmpty == true })
        #expect(appB.currentUser?.multiFactor.enrolledFactors.isEmpty == true)
    }
}

extension MultiFactorEmulatorTests {

    /// A factor's code is accepted once: the code that finished a sign-in does not finish another (RFC 6238,
    /// section 5.2), and the next time step's does.
    @Test func aCodeThatFinishedASignInDoesNotFinishAnother() async throws {
        let (fixture, idToken) = try await verifiedAccount()
        let (secret, _, _, enrolledAt) = try await enroll(fixture, idToken)
        func signIn(_ code: String) async throws -> (Int, [String: Any]) {
            let (_, pending) = try await fixture.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
            let credential = try #require(pending["mfaPendingCredential"] as? String)
            let enrollment = try #require((pending["mfaInfo"] as? [[String: Any]])?.first?["mfaEnrollmentId"] as? String)
            return try await fixture.post(
                Self.v2 + "mfaSignIn:finalize?key=k",
                body: #"{"mfaPendingCredential": "\#(credential)", "mfaEnrollmentId": "\#(enrollment)", "totpVerificationInfo": {"verificationCode": "\#(code)"}}"#)
        }
        let next = try #require(TOTP.code(base32Secret: secret, at: Self.timeAfter(enrolledAt)))
        #expect(try await signIn(next).0 == 200)
        let again = try await signIn(next)
        #expect(again.0 == 400 && Self.message(again.1) == "INVALID_CODE", "\(again.1)")
    }

    /// An export holds each TOTP factor with its secret, and an import (this emulator's file, or the Admin API's
    /// batchCreate) brings it back usable: the first factor asks for it, and its code signs in.
    @Test func factorsSurviveAnExportAndAnImport() async throws {
        let (fixture, idToken) = try await verifiedAccount()
        let (secret, _, _, _) = try await enroll(fixture, idToken)
        let exported = fixture.emulator.exportAccounts(includingPasswords: true)
        let users = try #require((try JSONSerialization.jsonObject(with: exported) as? [String: Any])?["users"] as? [[String: Any]])
        let factor = try #require((users.first?["mfaInfo"] as? [[String: Any]])?.first)
        #expect((factor["totpInfo"] as? [String: Any])?["sharedSecretKey"] as? String == secret && factor["displayName"] as? String == "phone app")

        let other = try await EmulatorFixture.start()
        try other.emulator.importAccounts(exported)
        let (_, pending) = try await other.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
        let credential = try #require(pending["mfaPendingCredential"] as? String, "the imported factor is asked for: \(pending)")
        let enrollment = try #require((pending["mfaInfo"] as? [[String: Any]])?.first?["mfaEnrollmentId"] as? String)
        #expect(enrollment == factor["mfaEnrollmentId"] as? String)
        let code = try #require(TOTP.code(base32Secret: secret, at: Date()))
        let (status, signedIn) = try await other.post(
            Self.v2 + "mfaSignIn:finalize?key=k",
            body: #"{"mfaPendingCredential": "\#(credential)", "mfaEnrollmentId": "\#(enrollment)", "totpVerificationInfo": {"verificationCode": "\#(code)"}}"#)
        #expect(status == 200 && signedIn["idToken"] is String, "\(signedIn)")

        // The Admin API's batchCreate takes the same mfaInfo; a factor without its secret, or any factor of an account
        // without a verified address, is refused.
        let admin = try await EmulatorFixture.start()
        let body = #"{"users": [{"localId": "grace", "email": "grace@example.com", "emailVerified": true, "rawPassword": "compiler-1", "mfaInfo": [{"displayName": "watch", "totpInfo": {"sharedSecretKey": "\#(secret)"}}]}, {"localId": "hopper", "mfaInfo": [{"totpInfo": {}}]}, {"localId": "lin", "mfaInfo": [{"phoneInfo": "+15555550100"}]}]}"#
        let (created, reply) = try await admin.post("/identitytoolkit.googleapis.com/v1/projects/\(admin.emulator.configuration.projectID)/accounts:batchCreate", body: body, bearer: "owner")
        #expect(created == 200, "\(reply)")
        #expect((reply["error"] as? [[String: Any]])?.map { $0["index"] as? Int } == [1, 2], "\(reply)")
        let (_, graced) = try await admin.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "grace@example.com", "password": "compiler-1"}"#)
        #expect((graced["mfaInfo"] as? [[String: Any]])?.first?["displayName"] as? String == "watch", "\(graced)")
    }
}
