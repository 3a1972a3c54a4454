import Foundation
import Testing

@testable import KeyringAuth

/// The email actions' replies and refusals as Firebase's public REST reference writes them
/// (firebase.google.com/docs/reference/rest/auth: "Send password reset email", "Verify password reset code",
/// "Confirm password reset", "Confirm email verification", "Sign in with email link"), never from our emulator;
/// and what an action link and the settings turn into.
@Suite struct EmailActionReplyTests {
    private func decode<Reply: Decodable>(_ type: Reply.Type, _ body: String, status: Int = 200) throws(AuthError) -> Reply {
        try IdentityToolkitReply.decode(type, status: status, body: Data(body.utf8), operation: "test")
    }

    @Test func sendOobCodeAndItsKindOnlyReply() throws {
        _ = try decode(OutOfBandCodeReply.self, #"{"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "[user@example.com]"}"#)
    }

    @Test func resetPasswordRepliesNameTheCodesOperationAndAddresses() throws {
        let check = try decode(ResetPasswordReply.self, """
            {"kind": "identitytoolkit#ResetPasswordResponse", "email": "[user@example.com]", "requestType": "PASSWORD_RESET"}
            """).info
        #expect(check.operation == .passwordReset && check.email == "[user@example.com]" && check.previousEmail == nil)
        let change = try decode(ResetPasswordReply.self, """
            {"kind": "identitytoolkit#ResetPasswordResponse", "email": "old@example.com", "newEmail": "new@example.com",
             "requestType": "VERIFY_AND_CHANGE_EMAIL"}
            """).info
        #expect(change.operation == .verifyAndChangeEmail && change.email == "new@example.com" && change.previousEmail == "old@example.com")
        let unknown = try decode(ResetPasswordReply.self, #"{"email": "a@example.com", "requestType": "SOMETHING_NEW"}"#).info
        #expect(unknown.operation == .unknown)
        #expect(throws: AuthError.self) { try decode(ResetPasswordReply.self, #"{"requestType": "PASSWORD_RESET"}"#).info }
    }

    @Test func confirmEmailVerificationNamesTheAccount() throws {
        let reply = try decode(AppliedCodeReply.self, """
            {"kind": "identitytoolkit#SetAccountInfoResponse", "localId": "FhyNDu...", "email": "[user@example.com]",
             "passwordHash": "...", "providerUserInfo": [{"providerId": "password", "federatedId": "[user@example.com]"}],
             "emailVerified": true}
            """)
        #expect(reply.localId == "FhyNDu..." && reply.emailVerified == true)
    }

    @Test func emailLinkSignInGivesTheUserTokensAndWhetherItIsNew() throws {
        let signIn = try decode(EmailLinkSignInReply.self, """
            {"kind": "identitytoolkit#EmailLinkSigninResponse", "idToken": "[ID_TOKEN]", "email": "[user@example.com]",
             "refreshToken": "[REFRESH_TOKEN]", "expiresIn": "3600", "localId": "Jws4SVjpT...", "isNewUser": true}
            """).signIn
        #expect(signIn.uid == "Jws4SVjpT..." && signIn.isNewUser && signIn.tokens.refreshToken == "[REFRESH_TOKEN]")
    }

    @Test(arguments: [
        ("EXPIRED_OOB_CODE", AuthErrorCode.expiredActionCode), ("INVALID_OOB_CODE", .invalidActionCode),
        ("INVALID_EMAIL : The email provided does not match the sign-in email address.", .invalidEmail),
        ("MISSING_CONTINUE_URI", .missingContinueURI), ("INVALID_CONTINUE_URI", .invalidContinueURI),
        ("UNAUTHORIZED_DOMAIN : Domain not allowlisted by project", .unauthorizedDomain),
        ("INVALID_RECIPIENT_EMAIL", .invalidRecipientEmail), ("EMAIL_NOT_FOUND", .userNotFound),
        ("EMAIL_CHANGE_NEEDS_VERIFICATION", .emailChangeNeedsVerification), ("USER_DISABLED", .userDisabled),
    ])
    func refusalsGetFirebasesCodes(_ message: String, _ code: AuthErrorCode) {
        let error = IdentityToolkitReply.serverError(
            status: 400, body: Data(#"{"error": {"code": 400, "message": "\#(message)", "errors": [{"message": "\#(message)", "domain": "global", "reason": "invalid"}]}}"#.utf8),
            operation: "test")
        #expect(error.code == code)
    }

    @Test func actionLinksAreReadWithLimits() throws {
        let link = "https://example.firebaseapp.com/__/auth/action?apiKey=AIza&mode=signIn&oobCode=abc%2B123&continueUrl=https%3A%2F%2Fexample.com%2Fdone%3Fa%3D1&lang=fr"
        let parts = try #require(ActionCodeURL(link: link))
        #expect(parts.operation == .emailLink && parts.code == "abc+123" && parts.apiKey == "AIza" && parts.languageCode == "fr")
        #expect(parts.continueURL?.absoluteString == "https://example.com/done?a=1")
        #expect(ActionCodeURL(link: "https://example.com/")?.code == nil)
        #expect(ActionCodeURL(link: "https://example.com/?mode=resetPassword&oobCode=x")?.operation == .passwordReset)
        #expect(ActionCodeURL(link: link + String(repeating: "a", count: AuthCredential.maximumFieldBytes)) == nil, "too long")
        #expect(try EmailLinkCredential.signInCode(in: link) == "abc+123")
        #expect(throws: AuthError.self) { try EmailLinkCredential.signInCode(in: "https://example.com/?mode=resetPassword&oobCode=x") }
        #expect(throws: AuthError.self) { try EmailLinkCredential.signInCode(in: "https://example.com/?mode=signIn") }
    }

    @Test func settingsBecomeTheRequestsFields() {
        let settings = ActionCodeSettings()
        #expect(settings.requestFields.isEmpty && settings.iOSBundleID == nil)
        settings.url = URL(string: "https://example.com/finish")
        settings.handleCodeInApp = true
        settings.linkDomain = "example.page"
        settings.setAndroidPackageName("com.example", installIfNotAvailable: true, minimumVersion: "12")
        let fields = settings.requestFields
        #expect(fields["continueUrl"] as? String == "https://example.com/finish" && fields["canHandleCodeInApp"] as? Bool == true)
        #expect(fields["linkDomain"] as? String == "example.page" && fields["androidPackageName"] as? String == "com.example")
        #expect(fields["androidInstallApp"] as? Bool == true && fields["androidMinimumVersion"] as? String == "12")
    }

    @Test func anEmailLinkCredentialPrintsAsItsProviderOnly() {
        let credential = EmailAuthProvider.credential(withEmail: "a@example.com", link: "https://example.com/?mode=signIn&oobCode=secret")
        #expect(credential.provider == "password")
        #expect(!"\(credential)".contains("secret") && !String(reflecting: credential).contains("secret"))
        #expect(credential == EmailAuthProvider.credential(withEmail: "a@example.com", link: "https://example.com/?mode=signIn&oobCode=secret"))
    }
}
