import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Phone numbers through the library against the bundled emulator, with app verification disabled for testing (as
/// `useEmulator` sets it): sign-in and sign-up, linking, reauthentication, a number change, another account's number,
/// and SMS second factors. The codes are the emulator's, read from its `verificationCodes` list.
@Suite struct PhoneAuthTests {
    static let number = "+15555550100"

    /// The code the emulator sent for `verificationID`.
    static func code(_ fixture: EmulatorFixture, for verificationID: String) async throws -> String {
        let url = URL(string: "http://\(fixture.address)/emulator/v1/projects/demo-keyring-auth/verificationCodes")!
        let (data, _) = try await URLSession.shared.data(from: url)
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codes = try #require(list["verificationCodes"] as? [[String: Any]])
        let entry = try #require(codes.first { $0["sessionInfo"] as? String == verificationID }, "no code for the verification")
        return try #require(entry["code"] as? String)
    }

    /// A credential for `number`: the code sent, then read back from the emulator.
    static func credential(_ fixture: EmulatorFixture, _ auth: Auth, _ number: String = number, session: MultiFactorSession? = nil) async throws
        -> PhoneAuthCredential
    {
        let provider = PhoneAuthProvider.provider(auth: auth)
        let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil, multiFactorSession: session)
        return provider.credential(withVerificationID: id, verificationCode: try await code(fixture, for: id))
    }

    @Test func useEmulatorDisablesAppVerificationForTestingAsApplesSDK() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            #expect(auth.settings?.isAppVerificationDisabledForTesting == true)
        }
    }

    @Test func aNumberSignsUpThenInAndItsCodeWorksOnce() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            let credential = try await Self.credential(fixture, auth)
            let first = try await auth.signIn(with: credential)
            #expect(first.user.phoneNumber == Self.number && first.additionalUserInfo?.isNewUser == true)
            #expect(first.additionalUserInfo?.providerID == "phone" && first.user.providerData.map(\.providerID) == ["phone"])
            try auth.signOut()
            // The same code again: used.
            await #expect(throws: AuthError.self) { try await auth.signIn(with: credential) }
            #expect(auth.currentUser == nil)
            let again = try await auth.signIn(with: try await Self.credential(fixture, auth))
            #expect(again.user.uid == first.user.uid && again.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func aNumberNotInE164IsRefusedBeforeAnyRequest() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            let provider = PhoneAuthProvider.provider(auth: auth)
            for (number, code) in [("", AuthErrorCode.missingPhoneNumber), ("5555550100", .invalidPhoneNumber), ("+1 555 555 0100", .invalidPhoneNumber),
                                   ("+0123", .invalidPhoneNumber), ("+1234567890123456", .invalidPhoneNumber)] {
                do {
                    _ = try await provider.verifyPhoneNumber(number, uiDelegate: nil, multiFactorSession: nil)
                    Issue.record("\(number) was sent")
                } catch let error as AuthError {
                    #expect(error.code == code, "\(number): \(error)")
                }
            }
            #expect(fixture.emulator.receivedRequests.allSatisfy { $0.operation != "accounts:sendVerificationCode" })
        }
    }

    @Test func aWrongCodeIsInvalidVerificationCodeAndStoresNothing() async throws {
        try await EmulatorFixture.with { fixture in
            let store = InMemoryStore()
            let auth = try fixture.auth(store: store)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let id = try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil, multiFactorSession: nil)
            let right = try await Self.code(fixture, for: id)
            let wrong = right == "000000" ? "111111" : "000000"
            do {
                _ = try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: wrong))
                Issue.record("a wrong code signed in")
            } catch let error as AuthError {
                #expect(error.code == .invalidVerificationCode)
            }
            do {
                _ = try await auth.signIn(with: provider.credential(withVerificationID: "not-an-id", verificationCode: right))
                Issue.record("an unknown verification ID signed in")
            } catch let error as AuthError {
                #expect(error.code == .invalidVerificationID)
            }
            let kept = try await store.items(in: .all)
            #expect(kept.isEmpty)
            #expect(auth.currentUser == nil)
        }
    }

    @Test func anAnonymousUserLinksANumberThenUpdatesIt() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            let user = try await auth.signInAnonymously().user
            let linked = try await user.link(with: try await Self.credential(fixture, auth))
            #expect(linked.user.uid == user.uid && !user.isAnonymous && user.phoneNumber == Self.number)
            #expect(user.providerData.map(\.providerID) == ["phone"])
            try await user.updatePhoneNumber(try await Self.credential(fixture, auth, "+15555550199"))
            #expect(auth.currentUser?.phoneNumber == "+15555550199" && auth.currentUser?.uid == user.uid)
        }
    }

    @Test func anotherAccountsNumberIsCredentialAlreadyInUseWhoseCredentialSignsInThere() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            let owner = try await auth.signIn(with: try await Self.credential(fixture, auth)).user
            try auth.signOut()
            let other = try await auth.signInAnonymously().user
            do {
                _ = try await other.link(with: try await Self.credential(fixture, auth))
                Issue.record("linked another account's number")
            } catch let error as AuthError {
                #expect(error.code == .credentialAlreadyInUse)
                let proof = try #require(error.updatedCredential as? PhoneAuthCredential)
                #expect(auth.currentUser?.uid == other.uid && other.isAnonymous)
                #expect(try await auth.signIn(with: proof).user.uid == owner.uid)
            }
        }
    }

    @Test func reauthenticationSendsReauthAndANumberOfNoAccountIsAMismatchNotANewAccount() async throws {
        try await EmulatorFixture.with { fixture in
            let auth = try fixture.auth()
            let user = try await auth.signIn(with: try await Self.credential(fixture, auth)).user
            let again = try await user.reauthenticate(with: try await Self.credential(fixture, auth))
            #expect(again.user.uid == user.uid)
            // Sent with REAUTH, the emulator answers as Identity Platform: USER_NOT_FOUND, no account made.
            let accounts = fixture.emulator.exportAccounts()
            do {
                _ = try await user.reauthenticate(with: try await Self.credential(fixture, auth, "+15555550177"))
                Issue.record("reauthenticated with a number of no account")
            } catch let error as AuthError {
                #expect(error.code == .userMismatch)
            }
            #expect(fixture.emulator.exportAccounts() == accounts)
            #expect(auth.currentUser?.uid == user.uid)
        }
    }

    @Test func anSMSFactorIsEnrolledAskedForAtSignInAndWithdrawn() async throws {
        try await EmulatorFixture.with { fixture in
            try fixture.emulator.importAccounts(Data(#"""
                {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical"}]}
                """#.utf8))
            let auth = try fixture.auth()
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "analytical").user
            let session = try await user.multiFactor.session()
            let credential = try await Self.credential(fixture, auth, "+15555550123", session: session)
            try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: "work phone")
            let factor = try #require(user.multiFactor.enrolledFactors.first as? PhoneMultiFactorInfo)
            #expect(factor.factorID == "phone" && factor.displayName == "work phone" && factor.phoneNumber == "+15555550123")
            try auth.signOut()

            let resolver: MultiFactorResolver
            do {
                _ = try await auth.signIn(withEmail: "ada@example.com", password: "analytical")
                Issue.record("signed in without the second factor")
                return
            } catch let error as AuthError where error.code == .secondFactorRequired {
                resolver = try #require(error.multiFactorResolver)
            }
            #expect(auth.currentUser == nil)
            let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let id = try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session)
            let sms = provider.credential(withVerificationID: id, verificationCode: try await Self.code(fixture, for: id))
            let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: sms))
            #expect(result.user.uid == "ada" && auth.currentUser?.uid == "ada")
            #expect(try await result.user.getIDTokenResult().signInSecondFactor == "phone")

            try await result.user.multiFactor.unenroll(with: hint)
            #expect(result.user.multiFactor.enrolledFactors.isEmpty)
        }
    }
}
