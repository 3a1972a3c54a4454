import Foundation
import SystemSupport
import Testing

@testable import KeyringAuth

/// The desktop sign-in's parts that need no network: SHA-256 against FIPS 180-4's vectors, PKCE's
/// encodings (RFC 7636's example), and literal token endpoint answers.
@Suite struct DesktopOAuthPartsTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func sha256MatchesFIPS180Vectors(_ message: String, _ digest: String) {
        #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
    }

    @Test func sha256OfAMillionAsAndOfEveryLengthAroundABlock() {
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Padding edge cases: 55, 56 and 64 bytes (known digests of "a" repeated).
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 56)) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 64)) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test func pkceMatchesRFC7636sExample() {
        let secrets = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: "s", rawNonce: "n")
        #expect(secrets.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func freshSecretsAreUnpaddedBase64URLAndDiffer() {
        let one = PKCE(), two = PKCE()
        for value in [one.verifier, one.state, one.rawNonce] {
            #expect(value.count == 43 && value.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
        #expect(one.verifier != two.verifier && one.state != two.state && one.rawNonce != two.rawNonce)
        #expect(PKCE.bytes(base64URL: PKCE.base64URL([0xfb, 0xff, 0x01])) == [0xfb, 0xff, 0x01])
    }

    @Test func theAuthorizationURLKeepsTheFlowsOwnParameters() {
        var flow = DesktopOAuthFlow(provider: .google, clientID: "id.apps.googleusercontent.com", clientSecret: "s")
        flow.additionalParameters = ["prompt": "select_account", "state": "attacker", "code_challenge_method": "plain"]
        let secrets = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: "st", rawNonce: "n")
        let url = flow.authorizationURL(redirectURI: "http://127.0.0.1:5000/", secrets: secrets)
        let items = Dictionary(uniqueKeysWithValues: URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!.map { ($0.name, $0.value!) })
        #expect(url.absoluteString.hasPrefix("https://accounts.google.com/o/oauth2/v2/auth?"))
        #expect(items["state"] == "st" && items["code_challenge_method"] == "S256" && items["prompt"] == "select_account")
        #expect(items["redirect_uri"] == "http://127.0.0.1:5000/" && items["scope"] == "openid email profile")
        #expect(items["nonce"] == SHA256.hexDigest(Array("n".utf8)))
        #expect(items["client_secret"] == nil, "the secret goes only to the token endpoint")
    }

    @Test func microsoftsSignInRedirectsToLocalhostAndEveryOtherProvidersTo127() {
        func provider(_ authorize: String) -> DesktopOAuthProvider {
            .openIDConnect(providerID: "oidc.x", issuer: nil, authorizationEndpoint: URL(string: authorize)!, tokenEndpoint: URL(string: authorize)!)
        }
        for microsoft in ["https://login.microsoftonline.com/common/oauth2/v2.0/authorize", "https://login.live.com/oauth20_authorize.srf",
                          "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize"] {
            #expect(provider(microsoft).loopbackHost == .localhost, "\(microsoft)")
        }
        #expect(DesktopOAuthProvider.google.loopbackHost == .ipv4 && DesktopOAuthProvider.github.loopbackHost == .ipv4)
        #expect(provider("https://login.microsoftonline.com.example.com/authorize").loopbackHost == .ipv4)
    }

    @Test func firebasesAuthorizationURLMustCarryOneState() throws {
        let (url, state) = try ProviderRedirectFlow.authorization("https://login.microsoftonline.com/a?state=abc&redirect_uri=x", of: "microsoft.com")
        #expect(state == "abc" && url.host == "login.microsoftonline.com")
        #expect(try ProviderRedirectFlow.authorization("http://127.0.0.1:9099/emulator/auth/idp?state=s", of: "yahoo.com").1 == "s")
        for refused in ["https://login.example.com/a", "https://login.example.com/a?state=1&state=2", "http://login.example.com/a?state=s",
                        "not a url", "https://login.example.com/a?state="] {
            #expect(throws: AuthError.self, "\(refused)") { try ProviderRedirectFlow.authorization(refused, of: "microsoft.com") }
        }
    }

    // MARK: Token endpoint answers, literally

    static let provider = DesktopOAuthProvider.openIDConnect(
        providerID: "oidc.example", issuer: "https://login.example.com", authorizationEndpoint: URL(string: "https://login.example.com/a")!,
        tokenEndpoint: URL(string: "https://login.example.com/t")!)

    static func jwt(_ claims: String) -> String {
        "eyJhbGciOiJub25lIn0.\(PKCE.base64URL(Array(claims.utf8)))."
    }

    /// The time the literal answers are read at, and the claims that make a token current then.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let current = #""iat":1800000000,"exp":1800003600"#

    private func answer(_ status: Int, _ body: String) throws(AuthError) -> OAuthCredential {
        try TokenAnswer.credential(
            status: status, body: Data(body.utf8), provider: Self.provider, clientID: "client", hashedNonce: "hashed", rawNonce: "raw",
            now: Self.now)
    }

    private func code(_ status: Int, _ body: String) -> AuthErrorCode? {
        do throws(AuthError) { _ = try answer(status, body); return nil } catch { return error.code }
    }

    @Test func aTokenAnswerGivesTheIDTokenAccessTokenAndRawNonce() throws {
        let idToken = Self.jwt(#"{"iss":"https://login.example.com","aud":"client","nonce":"hashed","sub":"u1",\#(Self.current)}"#)
        let credential = try answer(200, #"{"access_token":"at","id_token":"\#(idToken)","token_type":"Bearer","expires_in":3599}"#)
        #expect(credential.provider == "oidc.example" && credential.idToken == idToken && credential.accessToken == "at")
        #expect(credential.rawNonce == "raw")
        #expect(credential.postBody.contains("nonce=raw"), "Firebase gets the raw nonce")
    }

    @Test func tokensThatDoNotBelongToThisSignInAreRefused() {
        func body(_ claims: String) -> String { #"{"access_token":"at","id_token":"\#(Self.jwt(claims))"}"# }
        #expect(code(200, body(#"{"iss":"https://login.example.com","aud":"client","nonce":"other"}"#)) == .missingOrInvalidNonce)
        #expect(code(200, body(#"{"iss":"https://login.example.com","aud":"client"}"#)) == .missingOrInvalidNonce)
        #expect(code(200, body(#"{"iss":"https://login.example.com","aud":"someone-else","nonce":"hashed"}"#)) == .invalidCredential)
        #expect(code(200, body(#"{"iss":"https://evil.example","aud":["client"],"nonce":"hashed"}"#)) == .invalidCredential)
        #expect(code(200, #"{"access_token":"at","id_token":"not-a-jwt"}"#) == .invalidCredential)
        #expect(code(200, #"{"access_token":"at"}"#) == .invalidCredential, "openid was asked for: an ID token is required")
        #expect(code(200, #"{"token_type":"Bearer"}"#) == .invalidCredential)
        #expect(code(200, "<html>") == .internalError)
        #expect(code(200, String(repeating: " ", count: TokenAnswer.maximumBytes + 1)) == .internalError)
    }

    @Test func anIDTokenOutOfTimeOrForSeveralAudiencesWithoutOurAZPIsRefused() throws {
        func body(_ claims: String) -> String { #"{"access_token":"at","id_token":"\#(Self.jwt(claims))"}"# }
        let ours = #""iss":"https://login.example.com","nonce":"hashed""#
        let hour = 3600, day = 86_400, now = 1_800_000_000
        // Expired two hours ago; issued thirty days ahead; no times at all.
        #expect(code(200, body(#"{\#(ours),"aud":"client","iat":\#(now - 3 * hour),"exp":\#(now - 2 * hour)}"#)) == .invalidCredential)
        #expect(code(200, body(#"{\#(ours),"aud":"client","iat":\#(now + 30 * day),"exp":\#(now + 30 * day + hour)}"#)) == .invalidCredential)
        #expect(code(200, body(#"{\#(ours),"aud":"client"}"#)) == .invalidCredential)
        // Within the five minutes' skew either way: accepted.
        #expect(code(200, body(#"{\#(ours),"aud":"client","iat":\#(now - hour),"exp":\#(now - 240)}"#)) == nil)
        #expect(code(200, body(#"{\#(ours),"aud":"client","iat":\#(now + 240),"exp":\#(now + hour)}"#)) == nil)
        // Several audiences: the authorized party must be this client (OpenID Connect Core 3.1.3.7).
        #expect(code(200, body(#"{\#(ours),\#(Self.current),"aud":["client","other"]}"#)) == .invalidCredential)
        #expect(code(200, body(#"{\#(ours),\#(Self.current),"aud":["client","other"],"azp":"other"}"#)) == .invalidCredential)
        #expect(code(200, body(#"{\#(ours),\#(Self.current),"aud":["client","other"],"azp":"client"}"#)) == nil)
        #expect(code(200, body(#"{\#(ours),\#(Self.current),"aud":"client","azp":"other"}"#)) == .invalidCredential)
    }

    @Test func googlesIDTokenMayNameItsIssuerWithOrWithoutTheScheme() throws {
        for iss in ["https://accounts.google.com", "accounts.google.com"] {
            let idToken = Self.jwt(#"{"iss":"\#(iss)","aud":"client","nonce":"hashed","sub":"g",\#(Self.current)}"#)
            let credential = try TokenAnswer.credential(
                status: 200, body: Data(#"{"access_token":"at","id_token":"\#(idToken)"}"#.utf8), provider: .google, clientID: "client",
                hashedNonce: "hashed", rawNonce: "raw", now: Self.now)
            #expect(credential.provider == "google.com" && credential.idToken == idToken)
        }
        #expect(!DesktopOAuthProvider.google.isIssuer("https://evil.example") && !Self.provider.isIssuer("login.example.com"))
    }

    @Test func tokenEndpointErrorsHaveFirebasesCodes() {
        #expect(code(400, #"{"error":"invalid_grant","error_description":"Bad Request"}"#) == .invalidCredential)
        #expect(code(401, #"{"error":"invalid_client","error_description":"Unauthorized"}"#) == .invalidClientID)
        #expect(code(400, #"{"error":"unauthorized_client"}"#) == .invalidClientID)
        #expect(code(400, "not json") == .invalidCredential)
        #expect(code(503, "") == .networkError)
    }

    @Test func redirectRequestsAreParsedWithLimits() throws {
        let request = try #require(RedirectRequest(head: Array("GET /cb?code=a%2Fb&state=s+t&x HTTP/1.1\r\nHost: 127.0.0.1:5\r\nAccept: */*".utf8)))
        #expect(request.method == "GET" && request.path == "/cb" && request.host == "127.0.0.1:5")
        #expect(request.parameters["code"] == "a/b" && request.parameters["state"] == "s t" && request.parameters["x"] == "")
        let repeated = try #require(RedirectRequest(head: Array("GET /?state=a&state=b HTTP/1.1\r\nHost: h".utf8)))
        #expect(repeated.parameters.keys.contains("state") && repeated.parameters["state"]! == nil, "a repeated state is no state")
        #expect(RedirectRequest(head: Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b".utf8)) == nil, "two Host headers")
        #expect(RedirectRequest(head: Array("GET /".utf8)) == nil)
        #expect(RedirectRequest(head: Array("GET /?\((0...40).map { "p\($0)=1" }.joined(separator: "&")) HTTP/1.1".utf8)) == nil)
        #expect(RedirectRequest(head: [0xff, 0xfe]) == nil)
    }

    // MARK: Discovery documents, literally

    private func discovered(_ status: Int, _ document: String, issuer: String = "https://login.example.com") throws(AuthError) -> DesktopOAuthProvider {
        try DesktopOAuthProvider.fromDiscoveryDocument(
            status: status, body: Data(document.utf8), providerID: "oidc.example", issuer: issuer, scopes: ["openid"])
    }

    @Test func aDiscoveryDocumentGivesTheEndpoints() throws {
        let provider = try discovered(200, #"""
            {"issuer":"https://login.example.com","authorization_endpoint":"https://login.example.com/authorize",
             "token_endpoint":"https://login.example.com/token","code_challenge_methods_supported":["plain","S256"]}
            """#)
        #expect(provider.authorizationEndpoint.absoluteString == "https://login.example.com/authorize")
        #expect(provider.tokenEndpoint.absoluteString == "https://login.example.com/token")
        #expect(provider.issuer == "https://login.example.com" && provider.providerID == "oidc.example" && provider.scopes == ["openid"])
    }

    @Test func unusableDiscoveryDocumentsAreRefused() {
        func code(_ status: Int, _ document: String) -> AuthErrorCode? {
            do throws(AuthError) { _ = try discovered(status, document); return nil } catch { return error.code }
        }
        let endpoints = #""authorization_endpoint":"https://login.example.com/a","token_endpoint":"https://login.example.com/t""#
        #expect(code(404, "{}") == .invalidConfiguration)
        #expect(code(200, "[]") == .invalidConfiguration)
        #expect(code(200, #"{"issuer":"https://evil.example",\#(endpoints)}"#) == .invalidConfiguration, "another issuer")
        #expect(code(200, #"{"issuer":"https://login.example.com"}"#) == .invalidConfiguration, "no endpoints")
        #expect(code(200, #"{"issuer":"https://login.example.com",\#(endpoints),"code_challenge_methods_supported":["plain"]}"#)
            == .invalidConfiguration, "no S256")
        #expect(code(200, #"{"issuer":"https://login.example.com","authorization_endpoint":"http://login.example.com/a","token_endpoint":"https://login.example.com/t"}"#)
            == .invalidConfiguration, "plain http off loopback")
        #expect(code(200, #"{"issuer":"https://login.example.com",\#(endpoints)}"#) == nil)
    }

    /// An issuer is an https URL with no query, fragment or user (OpenID Connect Discovery §3): one that has any is
    /// refused before a request, so that it chooses no other path or query than `/.well-known/openid-configuration`.
    @Test func anIssuerWithAQueryFragmentOrUserIsRefused() throws {
        for issuer in ["https://login.example.com/admin/do?action=delete&id=1#", "https://login.example.com#", "https://login.example.com?x=1",
                       "https://user@login.example.com", "https://login.example.com/a#b", "ftp://login.example.com", "login.example.com"] {
            #expect(throws: AuthError.self, "\(issuer)") { try DesktopOAuthProvider.discoveryURL(of: issuer, providerID: "oidc.example") }
        }
        #expect(try DesktopOAuthProvider.discoveryURL(of: "https://login.example.com/tenant/", providerID: "oidc.example").absoluteString
            == "https://login.example.com/tenant/.well-known/openid-configuration")
    }

    /// Microsoft's multi-tenant issuer: discovered only through a tenant alias (`common`, `organizations`, `consumers`),
    /// and a token's issuer must be its own tenant's (`tid`).
    @Test func aMultiTenantIssuerTemplateIsTakenOnlyForATenantAliasAndCheckedWithTid() throws {
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let endpoints = #""authorization_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/authorize","token_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/token""#
        for alias in ["common", "organizations", "consumers"] {
            let provider = try discovered(200, #"{"issuer":"\#(template)",\#(endpoints)}"#, issuer: "https://login.microsoftonline.com/\(alias)/v2.0")
            #expect(provider.issuer == template)
        }
        #expect(throws: AuthError.self, "a tenant's own endpoint names its own issuer, not the template") {
            try discovered(200, #"{"issuer":"\#(template)",\#(endpoints)}"#, issuer: "https://login.microsoftonline.com/contoso/v2.0")
        }
        let provider = DesktopOAuthProvider.openIDConnect(
            providerID: "oidc.microsoft", issuer: template, authorizationEndpoint: URL(string: "https://login.microsoftonline.com/a")!,
            tokenEndpoint: URL(string: "https://login.microsoftonline.com/t")!)
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        #expect(provider.isIssuer("https://login.microsoftonline.com/\(tenant)/v2.0", tenant: tenant))
        #expect(!provider.isIssuer("https://login.microsoftonline.com/\(tenant)/v2.0", tenant: "72f988bf-86f1-41af-91ab-2d7cd011db47"), "another tenant's")
        #expect(!provider.isIssuer("https://login.microsoftonline.com/\(tenant)/v2.0", tenant: ""), "no tid")
        #expect(!provider.isIssuer("https://evil.example/\(tenant)/v2.0", tenant: tenant))
        #expect(!provider.isIssuer("https://login.microsoftonline.com/a/b/v2.0"), "one tenant element only")
        #expect(provider.isIssuer("https://login.microsoftonline.com/\(tenant)/v2.0"), "a redirect's iss, without a token: any tenant ID")
    }
}
