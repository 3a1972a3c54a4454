#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import KeyringAuthEmulator
import Synchronization
import Testing

/// Phone numbers on the emulator over HTTP, beyond firebase-tools' own cases (Tests/EmulatorSpecs): the codes told as
/// they are made, reauthentication, the temporary proof's sign-in, expired codes, the legacy paths, and SMS factors
/// through an export and an import.
@Suite struct PhoneEmulatorTests {
    private static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    private static let v2 = "/identitytoolkit.googleapis.com/v2/accounts/"
    private static let number = "+15555550100"

    private static func message(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

    /// The codes an emulator told of, oldest first.
    final class Told: Sendable {
        private let codes = Mutex<[AuthEmulator.VerificationCode]>([])
        var all: [AuthEmulator.VerificationCode] { codes.withLock { $0 } }
        func append(_ code: AuthEmulator.VerificationCode) { codes.withLock { $0.append(code) } }
    }

    /// Runs `body` with an emulator of its own that hands each code it makes to `told`; stops it after.
    private static func withEmulator(
        _ told: Told, _ body: (EmulatorFixture) async throws -> Void
    ) async throws {
        let fixture = try await EmulatorFixture.start(onVerificationCode: { code in told.append(code) })
        do {
            try await body(fixture)
        } catch {
            await fixture.emulator.stop()
            throw error
        }
        await fixture.emulator.stop()
    }

    /// Sends a code to `number` and signs in with it (`extra` fields added): the reply.
    private func signIn(_ fixture: EmulatorFixture, _ number: String = number, _ extra: String = "") async throws -> (Int, [String: Any]) {
        let (_, sent) = try await fixture.post(Self.v1 + "sendVerificationCode?key=k", body: #"{"phoneNumber": "\#(number)"}"#)
        let session = try #require(sent["sessionInfo"] as? String)
        let code = try #require(fixture.emulator.verificationCodes.first { $0.sessionInfo == session }?.code)
        return try await fixture.post(Self.v1 + "signInWithPhoneNumber?key=k", body: #"{"sessionInfo": "\#(session)", "code": "\#(code)"\#(extra)}"#)
    }

    @Test func eachCodeIsToldListedAndUsedOnce() async throws {
        let told = Told()
        try await Self.withEmulator(told) { fixture in
            let (status, sent) = try await fixture.post(Self.v1 + "sendVerificationCode?key=k", body: #"{"phoneNumber": "\#(Self.number)"}"#)
            #expect(status == 200)
            let code = try #require(told.all.first)
            #expect(code.sessionInfo == sent["sessionInfo"] as? String && code.phoneNumber == Self.number && code.purpose == .signIn)
            #expect(code.code.count == 6 && code.code.allSatisfy(\.isNumber))
            #expect(code.message == "To verify the phone number \(Self.number), use the code \(code.code).")
            #expect(fixture.emulator.verificationCodes == [code])
            let (_, listed) = try await fixture.get("/emulator/v1/projects/demo-keyring-auth/verificationCodes")
            #expect(listed["verificationCodes"] as? [[String: String]] == [["code": code.code, "phoneNumber": Self.number, "sessionInfo": code.sessionInfo]])

            let body = #"{"sessionInfo": "\#(code.sessionInfo)", "code": "\#(code.code)"}"#
            let (signedIn, reply) = try await fixture.post(Self.v1 + "signInWithPhoneNumber?key=k", body: body)
            #expect(signedIn == 200 && reply["isNewUser"] as? Bool == true && reply["idToken"] is String)
            #expect(fixture.emulator.verificationCodes.isEmpty)
            #expect(Self.message(try await fixture.post(Self.v1 + "signInWithPhoneNumber?key=k", body: body).1) == "INVALID_SESSION_INFO")
            #expect(fixture.emulator.accounts.first?.phoneNumber == Self.number)
        }
    }

    @Test func anExpiredCodeIsSessionExpired() async throws {
        try await EmulatorFixture.with { fixture in
            let (_, sent) = try await fixture.post(Self.v1 + "sendVerificationCode?key=k", body: #"{"phoneNumber": "\#(Self.number)"}"#)
            let code = try #require(fixture.emulator.verificationCodes.first)
            fixture.emulator.expireVerificationCodes()
            let body = #"{"sessionInfo": "\#(sent["sessionInfo"] as? String ?? "")", "code": "\#(code.code)"}"#
            #expect(Self.message(try await fixture.post(Self.v1 + "signInWithPhoneNumber?key=k", body: body).1) == "SESSION_EXPIRED")
            #expect(fixture.emulator.verificationCodes.isEmpty)
        }
    }

    /// `operation: "REAUTH"` as Identity Platform answers it (firebase-tools signs a new account up).
    @Test func aReauthenticationNeedsAnAccountWithTheNumber() async throws {
        try await EmulatorFixture.with { fixture in
            let (refused, unknown) = try await signIn(fixture, Self.number, #", "operation": "REAUTH""#)
            #expect(refused == 400 && Self.message(unknown) == "USER_NOT_FOUND", "\(unknown)")
            #expect(fixture.emulator.accounts.isEmpty)
            let (_, first) = try await signIn(fixture)
            let (status, again) = try await signIn(fixture, Self.number, #", "operation": "REAUTH""#)
            #expect(status == 200 && again["localId"] as? String == first["localId"] as? String && again["isNewUser"] as? Bool == false)
        }
    }

    /// A number another account has, verified while linking: a proof, which signs in to that account.
    @Test func theTemporaryProofSignsInToTheNumbersAccount() async throws {
        try await EmulatorFixture.with { fixture in
            let (_, owner) = try await signIn(fixture)
            let (_, anonymous) = try await fixture.post(Self.v1 + "signUp?key=k", body: "{}")
            let anonymousToken = try #require(anonymous["idToken"] as? String)
            let (status, proof) = try await signIn(fixture, Self.number, #", "idToken": "\#(anonymousToken)""#)
            #expect(status == 200 && proof["idToken"] == nil && proof["temporaryProofExpiresIn"] as? String == "3600")
            let temporaryProof = try #require(proof["temporaryProof"] as? String)
            let (signedIn, reply) = try await fixture.post(
                Self.v1 + "signInWithPhoneNumber?key=k", body: #"{"phoneNumber": "\#(Self.number)", "temporaryProof": "\#(temporaryProof)"}"#)
            #expect(signedIn == 200 && reply["localId"] as? String == owner["localId"] as? String, "\(reply)")
            let (_, otherNumber) = try await fixture.post(
                Self.v1 + "signInWithPhoneNumber?key=k", body: #"{"phoneNumber": "+15555550199", "temporaryProof": "\#(temporaryProof)"}"#)
            #expect(Self.message(otherNumber) == "INVALID_TEMPORARY_PROOF")
        }
    }

    @Test func theLegacyPathsAreTheSameOperations() async throws {
        try await EmulatorFixture.with { fixture in
            let legacy = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
            let (paramsStatus, params) = try await fixture.get(legacy + "getRecaptchaParam?key=k")
            #expect(paramsStatus == 200 && params["recaptchaSiteKey"] is String)
            let (_, sent) = try await fixture.post(legacy + "sendVerificationCode?key=k", body: #"{"phoneNumber": "\#(Self.number)"}"#)
            let session = try #require(sent["sessionInfo"] as? String)
            let code = try #require(fixture.emulator.verificationCodes.first?.code)
            let (status, reply) = try await fixture.post(
                legacy + "verifyPhoneNumber?key=k", body: #"{"sessionInfo": "\#(session)", "code": "\#(code)"}"#)
            #expect(status == 200 && reply["phoneNumber"] as? String == Self.number)
        }
    }

    @Test func theCodesKeptAreBounded() async throws {
        try await EmulatorFixture.with { fixture in
            let (_, first) = try await fixture.post(Self.v1 + "sendVerificationCode?key=k", body: #"{"phoneNumber": "+15555550100"}"#)
            for index in 1...1000 {
                _ = try await fixture.post(Self.v1 + "sendVerificationCode?key=k", body: #"{"phoneNumber": "+1555\#(1_000_000 + index)"}"#)
            }
            #expect(fixture.emulator.verificationCodes.count == 1000)
            #expect(!fixture.emulator.verificationCodes.contains { $0.sessionInfo == first["sessionInfo"] as? String }, "the oldest went first")
        }
    }

    /// An SMS factor through the emulator's export and import (`--export-on-exit`, `--import`): the file holds it as
    /// firebase-tools writes it, and the imported factor is asked for and passed with its code.
    @Test func anSMSFactorSurvivesAnExportAndAnImport() async throws {
        let told = Told()
        var exported = Data()
        try await Self.withEmulator(told) { fixture in
            try fixture.emulator.importAccounts(Data(#"""
                {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical"}]}
                """#.utf8))
            let (_, signedIn) = try await fixture.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
            let idToken = try #require(signedIn["idToken"] as? String)
            let (_, started) = try await fixture.post(
                Self.v2 + "mfaEnrollment:start?key=k", body: #"{"idToken": "\#(idToken)", "phoneEnrollmentInfo": {"phoneNumber": "+15555550111"}}"#)
            let session = try #require((started["phoneSessionInfo"] as? [String: Any])?["sessionInfo"] as? String)
            let code = try #require(told.all.last)
            #expect(code.purpose == .multiFactorEnrollment && code.message == "To enroll MFA with +15555550111, use the code \(code.code).")
            let (finalized, enrolled) = try await fixture.post(
                Self.v2 + "mfaEnrollment:finalize?key=k",
                body: #"{"idToken": "\#(idToken)", "displayName": "work phone", "phoneVerificationInfo": {"sessionInfo": "\#(session)", "code": "\#(code.code)"}}"#)
            #expect(finalized == 200, "\(enrolled)")
            exported = fixture.emulator.exportAccounts(includingPasswords: true)
        }

        let users = try #require((try JSONSerialization.jsonObject(with: exported) as? [String: Any])?["users"] as? [[String: Any]])
        let factor = try #require((users.first?["mfaInfo"] as? [[String: Any]])?.first)
        #expect(factor["phoneInfo"] as? String == "+15555550111" && factor["unobfuscatedPhoneInfo"] as? String == "+15555550111")
        #expect(factor["displayName"] as? String == "work phone" && factor["totpInfo"] == nil && factor["mfaEnrollmentId"] is String)
        #expect((factor["enrolledAt"] as? String)?.hasSuffix("Z") == true)

        let copied = Told()
        try await Self.withEmulator(copied) { other in
            try other.emulator.importAccounts(exported)
            #expect(other.emulator.exportAccounts(includingPasswords: true) == exported, "an import writes back the same file")
            let (_, pending) = try await other.post(Self.v1 + "signInWithPassword?key=k", body: #"{"email": "ada@example.com", "password": "analytical"}"#)
            let credential = try #require(pending["mfaPendingCredential"] as? String, "\(pending)")
            let hint = try #require((pending["mfaInfo"] as? [[String: Any]])?.first)
            #expect(hint["phoneInfo"] as? String == "+*******0111" && hint["unobfuscatedPhoneInfo"] == nil, "hidden before the second factor")
            let enrollment = try #require(hint["mfaEnrollmentId"] as? String)
            #expect(enrollment == factor["mfaEnrollmentId"] as? String)
            let (_, signInStarted) = try await other.post(
                Self.v2 + "mfaSignIn:start?key=k", body: #"{"mfaPendingCredential": "\#(credential)", "mfaEnrollmentId": "\#(enrollment)"}"#)
            let signInSession = try #require((signInStarted["phoneResponseInfo"] as? [String: Any])?["sessionInfo"] as? String)
            let signInCode = try #require(copied.all.last)
            #expect(signInCode.purpose == .multiFactorSignIn && signInCode.message.hasPrefix("To sign in with MFA using +15555550111"))
            // Apple's SDK sends the number as the first factor's answer hid it; others send it whole.
            let (status, done) = try await other.post(
                Self.v2 + "mfaSignIn:finalize?key=k",
                body: #"{"mfaPendingCredential": "\#(credential)", "phoneVerificationInfo": {"sessionInfo": "\#(signInSession)", "code": "\#(signInCode.code)", "phoneNumber": "+*******0111"}}"#)
            #expect(status == 200 && done["idToken"] is String, "\(done)")
        }
    }

    /// firebase-tools' own `accounts.json` (an `--export-on-exit` of its emulator) with an SMS factor imports.
    @Test func firebaseToolsExportOfAnSMSFactorImports() throws {
        let emulator = AuthEmulator(configuration: .init(port: 0))
        try emulator.importAccounts(Data(#"""
            {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "grace", "email": "grace@example.com",
             "emailVerified": true, "lastRefreshAt": "2024-05-06T07:08:09.123Z", "mfaInfo": [{"displayName": "Cell Phone",
             "enrolledAt": "2024-05-06T07:08:09.990Z", "mfaEnrollmentId": "abc", "phoneInfo": "+15555550100",
             "unobfuscatedPhoneInfo": "+15555550100"}]}]}
            """#.utf8))
        let exported = String(decoding: emulator.exportAccounts(), as: UTF8.self)
        #expect(exported.contains(#""enrolledAt" : "2024-05-06T07:08:09.990Z""#) && exported.contains(#""mfaEnrollmentId" : "abc""#))
        #expect(exported.contains(#""lastRefreshAt" : "2024-05-06T07:08:09.123Z""#))
        #expect(throws: AuthEmulatorError.self) {
            try emulator.importAccounts(Data(#"{"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "x", "email": "x@example.com", "emailVerified": true, "mfaInfo": [{"phoneInfo": "555"}]}]}"#.utf8))
        }
    }
}
