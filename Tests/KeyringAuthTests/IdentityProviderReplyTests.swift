import Foundation
import Testing

@testable import KeyringAuth

/// The client's reading of `accounts:signInWithIdp`, `accounts:signInWithCustomToken` and the linking and
/// unlinking answers, against literal bodies written from Firebase's public REST reference
/// (firebase.google.com/docs/reference/rest/auth) and the answers Firebase's SDKs are written to read,
/// never from our emulator.
@Suite struct IdentityProviderReplyTests {
    private func decode<Reply: Decodable>(_ type: Reply.Type, _ body: String, status: Int = 200) throws(AuthError) -> Reply {
        try IdentityToolkitReply.decode(type, status: status, body: Data(body.utf8), operation: "test")
    }

    /// A Firebase ID token's shape, for the answers that carry no `localId` (unsigned: only its payload is read).
    static func idToken(uid: String) -> String {
        let payload = #"{"iss":"https://securetoken.google.com/p","aud":"p","auth_time":1700000000,"user_id":"\#(uid)","sub":"\#(uid)","iat":1700000000,"exp":1700003600,"firebase":{"identities":{},"sign_in_provider":"custom"}}"#
        let encoded = Data(payload.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.\(encoded).c2lnbmF0dXJl"
    }

    // MARK: accounts:signInWithIdp

    @Test func theReferencesGoogleSignInAnswerGivesTheUserTheProviderAndItsProfile() throws {
        // "Sign in with OAuth credential", sample response.
        let reply = try decode(IdpSignInReply.self, #"""
            {"federatedId": "https://accounts.google.com/1234567890", "providerId": "google.com", "localId": "5xwsPCWYo...",
             "emailVerified": true, "email": "user@example.com", "oauthIdToken": "[GOOGLE_ID_TOKEN]", "firstName": "John",
             "lastName": "Doe", "fullName": "John Doe", "displayName": "John Doe", "idToken": "[ID_TOKEN]",
             "photoUrl": "https://lh5.googleusercontent.com/.../photo.jpg", "refreshToken": "[REFRESH_TOKEN]",
             "expiresIn": "3600", "rawUserInfo": "{\"updated_time\":\"2017-02-22T01:10:57+0000\",\"gender\":\"male\",\"name\":\"John Doe\"}"}
            """#)
        let signIn = try reply.signIn(requestedProvider: "google.com")
        #expect(signIn.uid == "5xwsPCWYo..." && signIn.tokens.idToken == "[ID_TOKEN]" && !signIn.isNewUser)
        let answer = try #require(signIn.identityProvider)
        #expect(answer.providerID == "google.com" && answer.idToken == "[GOOGLE_ID_TOKEN]")
        let info = AdditionalUserInfo(answer, isNewUser: signIn.isNewUser)
        #expect(info.profile?["name"] as? String == "John Doe" && info.profile?["gender"] as? String == "male")
        #expect(answer.credential?.idToken == "[GOOGLE_ID_TOKEN]" && answer.credential?.provider == "google.com")
    }

    @Test func aNewGitHubUserWithAScreenNameAndAnAccessTokenOnly() throws {
        let reply = try decode(IdpSignInReply.self, """
            {"kind": "identitytoolkit#VerifyAssertionResponse", "providerId": "github.com", "localId": "u1", "isNewUser": true,
             "screenName": "octocat", "oauthAccessToken": "[GITHUB_ACCESS_TOKEN]", "idToken": "[ID_TOKEN]",
             "refreshToken": "[REFRESH_TOKEN]", "expiresIn": "3600", "rawUserInfo": "not json"}
            """)
        let signIn = try reply.signIn(requestedProvider: "github.com")
        #expect(signIn.isNewUser && signIn.identityProvider?.username == "octocat")
        #expect(signIn.identityProvider?.credential?.accessToken == "[GITHUB_ACCESS_TOKEN]")
        #expect(AdditionalUserInfo(try #require(signIn.identityProvider), isNewUser: true).profile == nil, "unreadable profile left out")
    }

    @Test func anAlreadyLinkedCredentialComesBackInA200AsCredentialAlreadyInUse() throws {
        // With returnIdpCredential, Identity Toolkit answers 200 with errorMessage and the provider's tokens.
        let reply = try decode(IdpSignInReply.self, """
            {"kind": "identitytoolkit#VerifyAssertionResponse", "providerId": "google.com", "email": "taken@example.com",
             "oauthIdToken": "[GOOGLE_ID_TOKEN]", "oauthAccessToken": "[GOOGLE_ACCESS_TOKEN]",
             "errorMessage": "FEDERATED_USER_ID_ALREADY_LINKED"}
            """)
        #expect(throws: AuthError.self) { try reply.signIn(requestedProvider: "google.com") }
        do {
            _ = try reply.signIn(requestedProvider: "google.com")
        } catch {
            #expect(error.code == .credentialAlreadyInUse && error.email == "taken@example.com")
            let updated = error.updatedCredential as? OAuthCredential
            #expect(updated?.idToken == "[GOOGLE_ID_TOKEN]" && updated?.accessToken == "[GOOGLE_ACCESS_TOKEN]")
            let bridged = error as NSError
            #expect(bridged.code == 17025)
            #expect((bridged.userInfo[AuthErrors.userInfoUpdatedCredentialKey] as? OAuthCredential)?.provider == "google.com")
        }
    }

    @Test func needConfirmationIsAccountExistsWithDifferentCredential() throws {
        let reply = try decode(IdpSignInReply.self, """
            {"providerId": "facebook.com", "localId": "existing", "email": "dup@example.com", "needConfirmation": true,
             "verifiedProvider": ["google.com"], "oauthAccessToken": "[FB_ACCESS_TOKEN]"}
            """)
        do {
            _ = try reply.signIn(requestedProvider: "facebook.com")
            Issue.record("signed in an account that needs confirmation")
        } catch {
            #expect(error.code == .accountExistsWithDifferentCredential && error.email == "dup@example.com")
            #expect(error.message.contains("google.com") && (error.updatedCredential as? OAuthCredential)?.accessToken == "[FB_ACCESS_TOKEN]")
        }
    }

    @Test func anIdpAnswerWithoutTokensIsMalformed() {
        for body in [#"{"providerId": "google.com"}"#, #"{"localId": "u", "idToken": "i", "refreshToken": "r"}"#] {
            #expect(throws: AuthError.self) { try decode(IdpSignInReply.self, body).signIn(requestedProvider: "google.com") }
        }
    }

    @Test(arguments: [
        ("INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields.", AuthErrorCode.invalidCredential),
        ("INVALID_PROVIDER_ID : Provider Id is not supported.", .invalidProviderID),
        ("OPERATION_NOT_ALLOWED : The identity provider configuration is disabled.", .operationNotAllowed),
        ("MISSING_OR_INVALID_NONCE : Duplicate credential received.", .missingOrInvalidNonce),
        ("FEDERATED_USER_ID_ALREADY_LINKED", .credentialAlreadyInUse),
        ("EMAIL_EXISTS", .emailAlreadyInUse),
        ("USER_DISABLED", .userDisabled),
        ("TENANT_ID_MISMATCH", .tenantIDMismatch),
        ("INVALID_CUSTOM_TOKEN : Invalid assertion format. 3 dot separated segments required.", .invalidCustomToken),
        ("CREDENTIAL_MISMATCH", .customTokenMismatch),
        ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .requiresRecentLogin),
        ("NO_SUCH_PROVIDER", .noSuchProvider),
        ("UNSUPPORTED_TENANT_OPERATION", .unsupportedTenantOperation),
    ])
    func googlesErrorBodiesOfThesePathsMapToFirebasesCodes(_ message: String, _ code: AuthErrorCode) {
        let body = """
            {"error": {"code": 400, "message": "\(message)",
              "errors": [{"message": "\(message)", "domain": "global", "reason": "invalid"}]}}
            """
        #expect(IdentityToolkitReply.serverError(status: 400, body: Data(body.utf8), operation: "test").code == code)
    }

    // MARK: accounts:signInWithCustomToken

    @Test func theReferencesCustomTokenAnswerNamesTheUserOnlyInTheIDToken() throws {
        // "Exchange custom token for an ID and refresh token": idToken, refreshToken, expiresIn; no localId.
        let token = Self.idToken(uid: "server-uid-1")
        let reply = try decode(CustomTokenReply.self, """
            {"kind": "identitytoolkit#VerifyCustomTokenResponse", "idToken": "\(token)", "refreshToken": "[REFRESH_TOKEN]",
             "expiresIn": "3600", "isNewUser": true}
            """)
        let signIn = try reply.signIn
        #expect(signIn.uid == "server-uid-1" && signIn.isNewUser && signIn.tokens.refreshToken == "[REFRESH_TOKEN]")
        // The reference's placeholder is no JWT: the answer cannot name the user.
        let placeholder = try decode(CustomTokenReply.self, #"{"idToken": "[ID_TOKEN]", "refreshToken": "[R]", "expiresIn": "3600"}"#)
        #expect(throws: AuthError.self) { try placeholder.signIn }
        do { _ = try placeholder.signIn } catch { #expect(error.code == .internalError) }
    }

    // MARK: Linking and unlinking

    @Test func theReferencesEmailLinkAndUnlinkAnswersDecode() throws {
        // "Link with email/password": new tokens; "Unlink provider": the remaining providers, no tokens.
        let linked = try decode(SignInReply.self, """
            {"localId": "fhsdj...", "email": "user@example.com", "passwordHash": "...",
             "providerUserInfo": [{"providerId": "password", "federatedId": "user@example.com"}],
             "idToken": "[NEW_ID_TOKEN]", "refreshToken": "[NEW_REFRESH_TOKEN]", "expiresIn": "3600"}
            """)
        #expect(try linked.signIn(isNewUser: false).tokens.idToken == "[NEW_ID_TOKEN]")
        let unlinked = try decode(UpdateReply.self, """
            {"localId": "tRcfmLH7o2...", "email": "user@example.com", "displayName": "John Doe",
             "photoUrl": "https://lh5.googleusercontent.com/.../photo.jpg", "passwordHash": "...",
             "providerUserInfo": [{"providerId": "password", "federatedId": "user@example.com"}], "emailVerified": "true"}
            """)
        #expect(try unlinked.tokens == nil)
    }

    // MARK: What is sent

    @Test func thePostBodyIsFormEncodedWithEveryTokenTheCredentialHas() {
        let credential = OAuthProvider.credential(
            providerID: .custom("oidc.corp"), idToken: #"{"sub": "a&b=c"}"#, rawNonce: "n+1", accessToken: "tok/en")
        #expect(credential.postBody
            == "providerId=oidc.corp&id_token=%7B%22sub%22%3A%20%22a%26b%3Dc%22%7D&access_token=tok%2Fen&nonce=n%2B1")
        #expect(GitHubAuthProvider.credential(withToken: "gho_1").postBody() == "providerId=github.com&access_token=gho_1")
    }

    @Test func onlyASafeLanguageCodeBecomesAHeader() {
        #expect(IdentityToolkitBackend.headerSafe("pt-BR") == "pt-BR")
        #expect(IdentityToolkitBackend.headerSafe("zh_Hant_TW") == "zh_Hant_TW")
        for unsafe in ["", "fr\r\nX-Evil: 1", "fr;q=1", String(repeating: "a", count: 36), "fé"] {
            #expect(IdentityToolkitBackend.headerSafe(unsafe) == nil, "\(unsafe)")
        }
    }
}

extension AuthCredential {
    /// The `postBody` an identity provider's credential sends (test helper for the base type).
    func postBody() -> String? { (self as? OAuthCredential)?.postBody }
}
