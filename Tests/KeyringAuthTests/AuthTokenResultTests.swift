import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// ``AuthTokenResult`` decoded locally from ID tokens, as Firebase's SDKs decode them, with the limits
/// stored data needs (any process of the session can write the keychain item the token comes from).
@Suite struct AuthTokenResultTests {
    static func jwt(_ payload: String, header: String = #"{"alg":"RS256","kid":"k"}"#, signature: String = "c2ln") -> String {
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return "\(encode(header)).\(encode(payload)).\(signature)"
    }

    static let firebasePayload = """
        {"iss":"https://securetoken.google.com/my-project","aud":"my-project","auth_time":1700000000,
         "user_id":"u1","sub":"u1","iat":1700000100,"exp":1700003700,"email":"ada@example.com","email_verified":true,
         "role":"admin","level":3,"ratio":0.5,"tags":["a","b"],"nothing":null,"nested":{"deep":{"er":true}},
         "firebase":{"identities":{"google.com":["123"],"email":["ada@example.com"]},"sign_in_provider":"google.com",
           "sign_in_second_factor":"phone"}}
        """

    @Test func aFirebaseIDTokenDecodesAsFirebaseDecodesIt() throws {
        let token = Self.jwt(Self.firebasePayload)
        let result = try AuthTokenResult(token: token)
        #expect(result.token == token)
        #expect(result.expirationDate == Date(timeIntervalSince1970: 1_700_003_700))
        #expect(result.issuedAtDate == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(result.authDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(result.signInProvider == "google.com" && result.signInSecondFactor == "phone")
        #expect(result.claims["role"] as? String == "admin" && result.claims["level"] as? Int == 3)
        #expect(result.claims["ratio"] as? Double == 0.5 && result.claims["email_verified"] as? Bool == true)
        #expect((result.claims["tags"] as? [any Sendable])?.compactMap { $0 as? String } == ["a", "b"])
        #expect(((result.claims["nested"] as? [String: any Sendable])?["deep"] as? [String: any Sendable])?["er"] as? Bool == true)
        #expect(result.claims["nothing"] == nil, "JSON null is left out")
    }

    @Test func malformedOrOversizedTokensAreMalformedJWT() {
        var deep = "true"
        for _ in 0..<40 { deep = "{\"a\":\(deep)}" }
        let bad = [
            "", "one-part", "two.parts", "a.b.c.d", "x.%%%.y", Self.jwt("[1,2]"), Self.jwt("not json"),
            Self.jwt(#"{"exp":1,"iat":1,"auth_time":1}"#),  // no firebase.sign_in_provider
            Self.jwt(#"{"iat":1,"auth_time":1,"firebase":{"sign_in_provider":"password"}}"#),  // no exp
            Self.jwt(#"{"exp":"soon","iat":1,"auth_time":1,"firebase":{"sign_in_provider":"password"}}"#),
            Self.jwt(#"{"exp":1e300,"iat":1,"auth_time":1,"firebase":{"sign_in_provider":"password"}}"#),
            Self.jwt(#"{"exp":1,"iat":1,"auth_time":1,"firebase":{"sign_in_provider":"password"},"x":\#(deep)}"#),
            Self.jwt(#"{"exp":1,"iat":1,"auth_time":1,"firebase":{"sign_in_provider":"password"},"x":"\#(String(repeating: "y", count: 40_000))"}"#),
        ]
        for token in bad {
            do {
                _ = try AuthTokenResult(token: token)
                Issue.record("decoded \(token.prefix(60))")
            } catch {
                #expect(error.code == .malformedJWT, "\(error)")
                #expect(!error.message.contains(token) || token.isEmpty, "the token is not echoed")
            }
        }
    }

    @Test func aTamperedStoredTokenIsATypedErrorNotACrash() async throws {
        let apps = TwoApps()
        let auth = apps.launch("A", liveSync: false)
        let user = try await auth.signInAnonymously().user
        // FakeBackend's tokens are no JWTs, as a token another process wrote there may be none.
        do {
            _ = try await user.getIDTokenResult()
            Issue.record("decoded a token that is no JWT")
        } catch let error as AuthError {
            #expect(error.code == .malformedJWT)
        }
        #expect(auth.currentUser === user, "the user stays signed in")
    }
}
