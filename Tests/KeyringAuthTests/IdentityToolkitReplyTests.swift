import Foundation
import Testing

@testable import KeyringAuth

/// The client's decoding against literal bodies written from Firebase's public REST reference
/// (firebase.google.com/docs/reference/rest/auth) and from replies Google is documented to send,
/// never from our emulator, so the client and the emulator cannot drift together.
@Suite struct IdentityToolkitReplyTests {
    private func decode<Reply: Decodable>(_ type: Reply.Type, _ body: String, status: Int = 200) throws(AuthError) -> Reply {
        try IdentityToolkitReply.decode(type, status: status, body: Data(body.utf8), operation: "test")
    }

    private func failure(_ body: String, status: Int = 400) -> AuthError {
        IdentityToolkitReply.serverError(status: status, body: Data(body.utf8), operation: "test")
    }

    @Test func anAnonymousSignUpReplyGivesTheUserAndItsTokens() throws {
        let reply = try decode(SignInReply.self, """
            {"idToken": "[ID_TOKEN]", "email": "", "refreshToken": "[REFRESH_TOKEN]", "expiresIn": "3600",
             "localId": "Jws4SVjpT..."}
            """)
        let signIn = try reply.signIn(isNewUser: true)
        #expect(signIn.uid == "Jws4SVjpT...")
        #expect(signIn.tokens.idToken == "[ID_TOKEN]" && signIn.tokens.refreshToken == "[REFRESH_TOKEN]")
        let lifetime = signIn.tokens.expirationDate.timeIntervalSinceNow
        #expect(lifetime > 3500 && lifetime <= 3600)
    }

    @Test func aPasswordSignInReplyDecodesWithTheDocumentedExtraFields() throws {
        let reply = try decode(SignInReply.self, """
            {"kind": "identitytoolkit#VerifyPasswordResponse", "localId": "ZY1rJK0eYLg...", "email": "[user@example.com]",
             "displayName": "", "idToken": "[ID_TOKEN]", "registered": true, "refreshToken": "[REFRESH_TOKEN]",
             "expiresIn": "3600"}
            """)
        #expect(try reply.signIn(isNewUser: false).uid == "ZY1rJK0eYLg...")
    }

    @Test func lookupReadsTheProfileAndTheMillisecondStrings() throws {
        let reply = try decode(LookupReply.self, """
            {"users": [{"localId": "ZY1rJK0...", "email": "user@example.com", "emailVerified": false,
              "displayName": "John Doe",
              "providerUserInfo": [{"providerId": "password", "displayName": "John Doe",
                "photoUrl": "http://localhost:8080/img1234567890/photo.png", "federatedId": "user@example.com",
                "email": "user@example.com", "rawId": "user@example.com", "screenName": "user@example.com"}],
              "photoUrl": "https://lh5.googleusercontent.com/.../photo.jpg", "passwordHash": "...",
              "passwordUpdatedAt": 1.484124177E12, "validSince": "1484124177", "disabled": false,
              "lastLoginAt": "1484628946000", "createdAt": "1484124142000", "customAuth": false}]}
            """)
        let account = try #require(reply.users?.first).account
        #expect(account.uid == "ZY1rJK0...")
        #expect(account.email == "user@example.com" && account.displayName == "John Doe" && !account.emailVerified)
        #expect(account.photoURL?.host == "lh5.googleusercontent.com")
        #expect(account.creationDate == Date(timeIntervalSince1970: 1_484_124_142))
        #expect(account.lastSignInDate == Date(timeIntervalSince1970: 1_484_628_946))
        #expect(account.providers == [ProviderUserInfo(
            providerID: "password", uid: "user@example.com", displayName: "John Doe",
            photoURL: URL(string: "http://localhost:8080/img1234567890/photo.png"), email: "user@example.com")])
    }

    @Test func passwordChangeCarriesNewTokensAndAProfileUpdateNone() throws {
        let changed = try decode(UpdateReply.self, """
            {"localId": "tRcfmLH7o2...", "email": "[user@example.com]", "passwordHash": "...",
             "providerUserInfo": [{"providerId": "password", "federatedId": "[user@example.com]"}],
             "idToken": "[NEW_ID_TOKEN]", "refreshToken": "[NEW_REFRESH_TOKEN]", "expiresIn": "3600"}
            """)
        #expect(try changed.tokens?.idToken == "[NEW_ID_TOKEN]")
        let profile = try decode(UpdateReply.self, """
            {"localId": "tRcfmLH7o2...", "email": "[user@example.com]", "displayName": "[DISPLAY_NAME]",
             "photoUrl": "[PHOTO_URL]", "passwordHash": "...",
             "providerUserInfo": [{"providerId": "password", "federatedId": "[user@example.com]",
               "displayName": "[DISPLAY_NAME]", "photoUrl": "http://localhost:8080/img1234567890/photo.png"}]}
            """)
        #expect(try profile.tokens == nil)
    }

    @Test func deleteAcceptsItsKindOnlyBody() throws {
        _ = try decode(DeleteReply.self, #"{"kind": "identitytoolkit#DeleteAccountResponse"}"#)
        _ = try decode(DeleteReply.self, "{}")
    }

    @Test func aSecureTokenRefreshReplyDecodesInSnakeCase() throws {
        let documented = try decode(SecureTokenReply.self, """
            {"expires_in": "3600", "token_type": "Bearer", "refresh_token": "[REFRESH_TOKEN]", "id_token": "[ID_TOKEN]",
             "user_id": "tRcfmLH7o2XrNELi...", "project_id": "1234567890"}
            """)
        #expect(try documented.tokens.idToken == "[ID_TOKEN]")
        let accessOnly = try decode(SecureTokenReply.self, """
            {"access_token": "[ACCESS]", "expires_in": "3600", "token_type": "Bearer", "refresh_token": "[R]"}
            """)
        #expect(try accessOnly.tokens.idToken == "[ACCESS]")
    }

    // MARK: Errors

    @Test(arguments: ServerErrorCode.table.sorted { $0.key < $1.key })
    func everyDocumentedCodeMapsInGooglesShape(_ entry: (key: String, value: (AuthErrorCode, String))) {
        let body = """
            {"error": {"errors": [{"domain": "global", "reason": "invalid", "message": "\(entry.key)"}],
             "code": 400, "message": "\(entry.key)"}}
            """
        let error = failure(body)
        #expect(error.code == entry.value.0)
        #expect(error.message.contains(entry.key), "the server's code is kept for support")
    }

    @Test func detailsAfterAColonAreSplitOffAsFirebaseDoes() {
        #expect(failure(#"{"error": {"code": 400, "message": "WEAK_PASSWORD : Password should be at least 6 characters"}}"#).code == .weakPassword)
        let spaced = ServerErrorCode(message: "WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(spaced.code == "WEAK_PASSWORD" && spaced.detail == "Password should be at least 6 characters")
        let tight = ServerErrorCode(message: "INVALID_ID_TOKEN:The user's credential is no longer valid. The user must sign in again.")
        #expect(tight.code == "INVALID_ID_TOKEN" && tight.authError.code == .invalidUserToken)
    }

    @Test func secureTokenErrorsComeWithAStatusAndNoErrorsArray() {
        for (message, code) in [
            ("TOKEN_EXPIRED", AuthErrorCode.userTokenExpired), ("USER_DISABLED", .userDisabled), ("USER_NOT_FOUND", .userNotFound),
            ("INVALID_REFRESH_TOKEN", .invalidUserToken), ("INVALID_GRANT_TYPE", .internalError),
            ("MISSING_REFRESH_TOKEN", .invalidUserToken),
        ] {
            #expect(failure(#"{"error": {"code": 400, "message": "\#(message)", "status": "INVALID_ARGUMENT"}}"#).code == code)
        }
    }

    @Test func aRefusedAPIKeyIsInvalidAPIKeyInEveryShapeGoogleUses() {
        let modern = """
            {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
              "errors": [{"message": "API key not valid. Please pass a valid API key.", "domain": "global", "reason": "badRequest"}],
              "status": "INVALID_ARGUMENT",
              "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                "domain": "googleapis.com", "metadata": {"service": "identitytoolkit.googleapis.com"}}]}}
            """
        let legacy = #"{"error": {"errors": [{"domain": "usageLimits", "reason": "keyInvalid", "message": "Bad Request"}], "code": 400, "message": "Bad Request"}}"#
        let missing = #"{"error": {"code": 403, "message": "The request is missing a valid API key.", "status": "PERMISSION_DENIED"}}"#
        #expect(failure(modern).code == .invalidAPIKey)
        #expect(failure(legacy).code == .invalidAPIKey)
        #expect(failure(missing, status: 403).code == .invalidAPIKey)
    }

    @Test func googlesSentencesWithColonsAreNotSplitAndA429IsTooManyRequests() {
        let quota = #"{"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' of service 'identitytoolkit.googleapis.com' for consumer 'project_number:123'.", "status": "RESOURCE_EXHAUSTED"}}"#
        #expect(failure(quota, status: 429).code == .tooManyRequests)
        #expect(ServerErrorCode(message: "Quota exceeded for consumer 'project_number:123'.").detail == nil)
    }

    @Test func anUnknownCodeIsAnInternalErrorThatNamesIt() {
        let error = failure(#"{"error": {"code": 400, "message": "SOMETHING_NEW : with a detail"}}"#)
        #expect(error.code == .internalError && error.message.contains("SOMETHING_NEW: with a detail"))
    }

    // MARK: Malformed replies

    @Test func malformedSuccessBodiesAreTypedErrors() {
        let bodies = [
            "", "<html>OK</html>", "[]", "null", #"{"localId": "u"}"#,
            #"{"localId": "u", "idToken": "i", "refreshToken": "r", "expiresIn": "soon"}"#,
            #"{"localId": 7, "idToken": "i", "refreshToken": "r", "expiresIn": "3600"}"#,
        ]
        for body in bodies {
            #expect(throws: AuthError.self, "\(body)") { _ = try decode(SignInReply.self, body) }
            do { _ = try decode(SignInReply.self, body) } catch { #expect(error.code == .internalError) }
        }
    }

    @Test func tokensThatCannotBeUsedAreRefused() {
        for body in [
            #"{"localId": "u", "idToken": "", "refreshToken": "r", "expiresIn": "3600"}"#,
            #"{"localId": "u", "idToken": "i", "refreshToken": "r", "expiresIn": "-5"}"#,
            #"{"localId": "u", "idToken": "i", "refreshToken": "r", "expiresIn": "99999999999999"}"#,
        ] {
            #expect(throws: AuthError.self, "\(body)") { _ = try decode(SignInReply.self, body).signIn(isNewUser: false) }
        }
        #expect(throws: AuthError.self) { _ = try decode(SecureTokenReply.self, #"{"refresh_token": "r", "expires_in": "3600"}"#).tokens }
    }

    @Test func failuresWithoutAnErrorBodyAreNetworkOrInternalErrors() {
        #expect(failure("<html>Bad Gateway</html>", status: 502).code == .networkError)
        #expect(failure("", status: 503).code == .networkError)
        #expect(failure("<html>Not Found</html>", status: 404).code == .internalError)
        #expect(failure(#"{"error": "nope"}"#, status: 400).code == .internalError)
    }

    // MARK: Endpoints

    @Test func productionAndEmulatorURLsAreFirebasesPaths() throws {
        let production = IdentityToolkitEndpoint.production
        #expect(production.accountsURL("signUp", apiKey: "AIza+/key").absoluteString
            == "https://identitytoolkit.googleapis.com/v1/accounts:signUp?key=AIza%2B/key")
        #expect(production.tokenURL(apiKey: "k").absoluteString == "https://securetoken.googleapis.com/v1/token?key=k")
        let emulator = try IdentityToolkitEndpoint.emulator(host: "127.0.0.1", port: 9099)
        #expect(emulator.accountsURL("lookup", apiKey: "k").absoluteString
            == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k")
        #expect(emulator.tokenURL(apiKey: "k").absoluteString == "http://127.0.0.1:9099/securetoken.googleapis.com/v1/token?key=k")
        #expect(try IdentityToolkitEndpoint.emulator(hostAndPort: "[::1]:9099").emulatorHost == "[::1]:9099")
    }

    @Test func theEmulatorVariableChoosesTheEndpointOrIsRefused() throws {
        #expect(try IdentityToolkitEndpoint.fromEnvironment([:]) == .production)
        #expect(try IdentityToolkitEndpoint.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": ""]) == .production)
        #expect(try IdentityToolkitEndpoint.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": "localhost:9099"]).emulatorHost == "localhost:9099")
        for bad in ["localhost", "localhost:0", "localhost:99999", ":9099", "local host:9099", "http://localhost:9099/"] {
            #expect(throws: AuthError.self, "\(bad)") { try IdentityToolkitEndpoint.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": bad]) }
        }
    }

    @Test func ipv6EmulatorAddressesMakeBracketedURLs() throws {
        for endpoint in [
            try IdentityToolkitEndpoint.emulator(hostAndPort: "[::1]:9099"),
            try IdentityToolkitEndpoint.emulator(host: "::1", port: 9099),
            try IdentityToolkitEndpoint.emulator(host: "[::1]", port: 9099),
            try IdentityToolkitEndpoint.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": "[::1]:9099"]),
        ] {
            #expect(endpoint.emulatorHost == "[::1]:9099")
            let url = endpoint.accountsURL("signUp", apiKey: "k")
            #expect(url.absoluteString == "http://[::1]:9099/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k")
            #expect(url.host == "::1" || url.host == "[::1]", "a URL whose host is the address")
            #expect(url.port == 9099)
            #expect(endpoint.tokenURL(apiKey: "k").absoluteString == "http://[::1]:9099/securetoken.googleapis.com/v1/token?key=k")
        }
    }

    @Test func malformedIPv6EmulatorAddressesAreRefusedWithAdvice() {
        let cases: [(String, String)] = [
            ("::1:9099", "[::1]:9099"),
            ("[::1", "[::1]:9099"),
            ("[::1]", "[::1]:9099"),
            ("[::1]9099", "[::1]:9099"),
            ("[::1]:", "[::1]:9099"),
            ("[::1]:0", "[::1]:9099"),
            ("[127.0.0.1]:9099", "127.0.0.1:9099"),
            ("[not:an:address]:9099", "[::1]:9099"),
            ("::1]:9099", "[::1]:9099"),
        ]
        for (bad, advice) in cases {
            do {
                _ = try IdentityToolkitEndpoint.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": bad])
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(error.code == .invalidConfiguration, "\(bad)")
                #expect(error.message.contains(advice), "\(bad): \(error.message)")
            }
        }
        #expect(throws: AuthError.self) { try IdentityToolkitEndpoint.emulator(host: "[::1", port: 9099) }
        #expect(throws: AuthError.self) { try IdentityToolkitEndpoint.emulator(host: "::1]", port: 9099) }
        #expect(throws: AuthError.self) { try IdentityToolkitEndpoint.emulator(host: "1:2:3", port: 9099) }
    }

    @Test func aMalformedVariableFailsEachRequestWithAdviceUntilFixed() async throws {
        let backend = IdentityToolkitBackend(apiKey: "k", environment: ["FIREBASE_AUTH_EMULATOR_HOST": "nonsense"])
        await #expect(throws: AuthError.self) { _ = try await backend.signUpAnonymously(tenantID: nil) }
        do {
            _ = try await backend.signUpAnonymously(tenantID: nil)
        } catch {
            #expect(error.code == .invalidConfiguration && error.message.contains("FIREBASE_AUTH_EMULATOR_HOST"))
        }
        try backend.useEmulator(host: "127.0.0.1", port: 9)
        #expect(try backend.endpoint().emulatorHost == "127.0.0.1:9")
    }
}
