import Foundation
import KeyringTestSupport
import Synchronization
import Testing

@testable import KeyringAuthEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An identity provider's sign-in begun by `accounts:createAuthUri` with a `providerId`, as Identity Platform serves
/// it: the `authUri` leads to the emulator's own page, a stand-in browser without JavaScript chooses or makes an
/// account there (or declines) and stops at the redirect back to the app, and `accounts:signInWithIdp` with that
/// URL and the `sessionId` signs in. Over loopback HTTP, but for the bounds, which use the emulator's clock.
@Suite struct IdpSignInTests {
    /// Where the browser returns: nothing listens there, the stand-in browser stops at the redirect.
    static let continueUri = "http://localhost:54321/callback"

    private func call(_ fixture: EmulatorFixture, _ operation: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try await fixture.post("/identitytoolkit.googleapis.com/v1/accounts:\(operation)?key=AIzaEmulatorKey", body: text)
    }

    private func message(_ reply: [String: Any]) -> String {
        (reply["error"] as? [String: Any])?["message"] as? String ?? "(no error)"
    }

    /// `createAuthUri` for `providerId` with the loopback `continueUri`: the `authUri` and the `sessionId`.
    private func begin(
        _ fixture: EmulatorFixture, providerId: String = "microsoft.com", _ extra: [String: Any] = [:]
    ) async throws -> (authUri: URL, sessionId: String) {
        let (status, reply) = try await call(
            fixture, "createAuthUri", ["providerId": providerId, "continueUri": Self.continueUri].merging(extra) { _, new in new })
        #expect(status == 200, "\(reply)")
        let authUri = try #require((reply["authUri"] as? String).flatMap(URL.init(string:)), "\(reply)")
        return (authUri, try #require(reply["sessionId"] as? String))
    }

    private func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    private func signIn(
        _ fixture: EmulatorFixture, _ requestUri: URL, sessionId: String?, _ extra: [String: Any] = [:]
    ) async throws -> (Int, [String: Any]) {
        var body: [String: Any] = ["requestUri": requestUri.absoluteString, "returnSecureToken": true]
        body["sessionId"] = sessionId
        return try await call(fixture, "signInWithIdp", body.merging(extra) { _, new in new })
    }

    private func idTokenClaims(_ token: String) throws -> [String: Any] {
        var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        return try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: payload))) as? [String: Any] ?? [:]
    }

    @Test func createAuthUriAnswersAnAuthorizationURLOfTheEmulatorsPage() async throws {
        try await EmulatorFixture.with { fixture in
            let (status, reply) = try await call(fixture, "createAuthUri", [
                "providerId": "microsoft.com", "continueUri": Self.continueUri, "oauthScope": "openid email Mail.Read",
                "customParameter": ["tenant": "common", "prompt": "select_account", "login_hint": "ada@example.com"],
            ])
            #expect(status == 200, "\(reply)")
            #expect(reply["kind"] as? String == "identitytoolkit#CreateAuthUriResponse" && reply["providerId"] as? String == "microsoft.com")
            let sessionId = try #require(reply["sessionId"] as? String)
            #expect(sessionId.count >= 20)
            let authUriText = try #require(reply["authUri"] as? String)
            let authUri = try #require(URLComponents(string: authUriText))
            #expect(authUri.scheme == "http" && authUri.host == fixture.address.host && authUri.port == fixture.address.port)
            #expect(authUri.path == "/emulator/auth/idp")
            #expect(authUri.queryItems?.map(\.name) == ["providerId", "redirect_uri", "state", "scope", "login_hint", "prompt", "tenant"])
            let items = query(try #require(authUri.url))
            #expect(items["providerId"] == "microsoft.com" && items["redirect_uri"] == Self.continueUri)
            #expect(items["scope"] == "openid email Mail.Read" && items["tenant"] == "common" && items["login_hint"] == "ada@example.com")
            let state = try #require(items["state"])
            #expect(state.count == 40 && state.allSatisfy { $0.isLetter || $0.isNumber })
            #expect(!authUri.string!.contains(sessionId), "the sessionId stays out of the URL")

            let (_, again) = try await call(fixture, "createAuthUri", [
                "providerId": "yahoo.com", "continueUri": Self.continueUri, "sessionId": "the-apps-own-session",
            ])
            #expect(again["sessionId"] as? String == "the-apps-own-session")
            let other = query(try #require((again["authUri"] as? String).flatMap(URL.init(string:))))
            #expect(other["state"] != state && other["scope"] == nil && other["providerId"] == "yahoo.com")
        }
    }

    @Test func aPersonMakesAMicrosoftAccountOnThePageThenTheSameUserSignsInAgain() async throws {
        try await EmulatorFixture.with { fixture in
            let (authUri, sessionId) = try await begin(fixture)
            let page = try EmulatorIdPPage.open(authUri)
            #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(page.body.contains("No microsoft.com account in the emulator yet") && !page.body.contains("<script"))
            #expect(page.headers["cache-control"] == "no-store" && page.headers["referrer-policy"] == "no-referrer")

            let back = try EmulatorIdPPage.answer(authUri, .newAccount(email: "Ada@Example.com", displayName: "Ada Lovelace"))
            #expect(back.absoluteString.hasPrefix(Self.continueUri + "?code="))
            #expect(query(back)["state"] == query(authUri)["state"] && query(back)["code"]?.isEmpty == false)

            let (status, first) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(status == 200, "\(first)")
            #expect(first["kind"] as? String == "identitytoolkit#VerifyAssertionResponse")
            #expect(first["providerId"] as? String == "microsoft.com" && first["isNewUser"] as? Bool == true)
            #expect(first["email"] as? String == "ada@example.com" && first["emailVerified"] as? Bool == true)
            #expect(first["displayName"] as? String == "Ada Lovelace")
            #expect(first["oauthAccessToken"] as? String == "FirebaseAuthEmulatorFakeAccessToken_microsoft.com")
            let rawId = try #require(first["federatedId"] as? String)
            #expect(rawId.count == 40 && rawId.allSatisfy(\.isNumber))
            let localId = try #require(first["localId"] as? String)
            let claims = try idTokenClaims(try #require(first["idToken"] as? String))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "microsoft.com")
            #expect(first["refreshToken"] as? String != nil)

            let account = try #require(fixture.emulator.accounts.first { $0.localId == localId })
            #expect(account.email == "ada@example.com")
            #expect(account.identities.map(\.providerId) == ["microsoft.com"] && account.identities.first?.rawId == rawId)

            // The next sign-in finds the account on the page and signs in as the same user.
            let (authUri2, sessionId2) = try await begin(fixture)
            let links = EmulatorIdPPage.accounts(in: try EmulatorIdPPage.open(authUri2).body, at: authUri2)
            #expect(links.map(\.text) == ["Ada Lovelace <ada@example.com>"])
            let back2 = try EmulatorIdPPage.answer(authUri2, .firstAccount)
            let (status2, second) = try await signIn(fixture, back2, sessionId: sessionId2)
            #expect(status2 == 200, "\(second)")
            #expect(second["localId"] as? String == localId && second["isNewUser"] as? Bool == false && second["federatedId"] as? String == rawId)
            #expect(fixture.emulator.accounts.count == 1)
        }
    }

    @Test func linkingWithAnIDTokenAddsTheProviderToAnEmailAccount() async throws {
        try await EmulatorFixture.with { fixture in
            let (_, signedUp) = try await call(fixture, "signUp", ["email": "grace@example.com", "password": "hopper-1906", "returnSecureToken": true])
            let idToken = try #require(signedUp["idToken"] as? String)
            let localId = try #require(signedUp["localId"] as? String)

            let (authUri, sessionId) = try await begin(fixture)
            let back = try EmulatorIdPPage.answer(authUri, .newAccount(email: "grace@work.example", displayName: "Grace Hopper"))
            let (status, linked) = try await signIn(fixture, back, sessionId: sessionId, ["idToken": idToken])
            #expect(status == 200, "\(linked)")
            #expect(linked["localId"] as? String == localId && linked["providerId"] as? String == "microsoft.com")
            let account = try #require(fixture.emulator.accounts.first { $0.localId == localId })
            #expect(account.email == "grace@example.com" && account.identities.map(\.providerId) == ["microsoft.com"])
            #expect(account.identities.first?.email == "grace@work.example")

            // That identity signs in to the same account by itself now.
            let (authUri2, sessionId2) = try await begin(fixture)
            let (_, again) = try await signIn(fixture, try EmulatorIdPPage.answer(authUri2, .account(containing: "grace@work.example")), sessionId: sessionId2)
            #expect(again["localId"] as? String == localId && again["isNewUser"] as? Bool == false, "\(again)")
        }
    }

    @Test func theSessionIDIsRequiredTheRequestURIIsTheContinueURIsAndTheCodeIsUsedOnce() async throws {
        try await EmulatorFixture.with { fixture in
            let (authUri, sessionId) = try await begin(fixture, ["sessionId": "app-session-1"])
            #expect(sessionId == "app-session-1")
            let back = try EmulatorIdPPage.answer(authUri, .newAccount(email: "ada@example.com"))

            let (missingStatus, missing) = try await signIn(fixture, back, sessionId: nil)
            #expect(missingStatus == 400 && message(missing).hasPrefix("INVALID_IDP_RESPONSE"), "\(missing)")
            #expect(message(missing).contains("sessionId is required"))
            let (_, wrong) = try await signIn(fixture, back, sessionId: "someone-elses-session")
            #expect(message(wrong).hasPrefix("INVALID_IDP_RESPONSE") && message(wrong).contains("not the one createAuthUri answered"))

            let forgedCode = URL(string: back.absoluteString.replacingOccurrences(of: "code=", with: "code=x"))!
            let (_, forged) = try await signIn(fixture, forgedCode, sessionId: sessionId)
            #expect(message(forged).hasPrefix("INVALID_IDP_RESPONSE") && message(forged).contains("code"), "\(forged)")

            let elsewhere = URL(string: "http://localhost:54321/elsewhere?" + (back.query ?? ""))!
            let (_, misdirected) = try await signIn(fixture, elsewhere, sessionId: sessionId)
            #expect(message(misdirected).hasPrefix("INVALID_REQUEST_URI"), "\(misdirected)")

            let (status, signedIn) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(status == 200 && signedIn["isNewUser"] as? Bool == true, "\(signedIn)")

            let (replayStatus, replayed) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(replayStatus == 400 && message(replayed).hasPrefix("INVALID_IDP_RESPONSE") && message(replayed).contains("finished already"))
            #expect(try EmulatorIdPPage.open(authUri).status == 400, "a finished sign-in's page is gone")
        }
    }

    /// `requestUri` is compared with `continueUri` as an address (scheme, host, port, path), not as a prefix of the text.
    @Test func theRequestURIIsAtTheContinueURIsAddressNotAPrefixOfIt() {
        let same = [
            ("http://localhost:1234/?code=c&state=s", "http://localhost:1234/"),
            ("http://localhost:1234?code=c", "http://localhost:1234/"),
            ("HTTP://LocalHost:1234/?code=c", "http://localhost:1234/"),
            ("http://localhost/?code=c", "http://localhost:80/"),
            ("https://app.example.com/back?code=c#x", "https://app.example.com:443/back"),
        ]
        for (request, continueUri) in same {
            #expect(EmulatorService.isSameAddress(request, as: continueUri), "\(request) at \(continueUri)")
        }
        let other = [
            ("http://localhost:12345/?code=c", "http://localhost:1234"),  // a prefix of the text, another port
            ("https://example.com.evil/?code=c", "https://example.com"),  // a prefix of the text, another host
            ("http://localhost:1234/backdoor?code=c", "http://localhost:1234/back"),
            ("https://localhost:1234/?code=c", "http://localhost:1234/"),
            ("http://localhost:1234/?code=c", "http://127.0.0.1:1234/"),
            ("not a uri", "http://localhost:1234/"),
            ("/relative?code=c", "http://localhost:1234/"),
        ]
        for (request, continueUri) in other {
            #expect(!EmulatorService.isSameAddress(request, as: continueUri), "\(request) not at \(continueUri)")
        }
    }

    @Test func theEmulatorRedirectsOnlyToTheContinueURIOfAPendingSignIn() async throws {
        try await EmulatorFixture.with { fixture in
            let (authUri, sessionId) = try await begin(fixture)
            let state = try #require(query(authUri)["state"])
            let base = "http://\(fixture.address)/emulator/auth/idp"

            let foreignState = try EmulatorIdPPage.open(URL(string: "\(base)?providerId=microsoft.com&redirect_uri=http%3A%2F%2Fevil.example%2F&state=NotAStateOfOurs")!)
            #expect(foreignState.status == 400 && foreignState.headers["location"] == nil && foreignState.body.contains("not pending"))
            var redirected = URLComponents(url: authUri, resolvingAgainstBaseURL: false)!
            redirected.queryItems = redirected.queryItems!.map { $0.name == "redirect_uri" ? URLQueryItem(name: $0.name, value: "http://evil.example/") : $0 }
            let foreignRedirect = try EmulatorIdPPage.open(redirected.url!)
            #expect(foreignRedirect.status == 400 && foreignRedirect.headers["location"] == nil && foreignRedirect.body.contains("redirect_uri"))
            let noState = try FakeOAuthProvider.Browser.get(URL(string: "\(base)/answer?email=ada%40example.com")!)
            #expect(noState.status == 400 && noState.headers["location"] == nil)
            let unknown = try FakeOAuthProvider.Browser.get(URL(string: "\(base)/answer?state=NotAStateOfOurs&error=access_denied")!)
            #expect(unknown.status == 400 && unknown.headers["location"] == nil)
            let badEmail = try FakeOAuthProvider.Browser.get(URL(string: "\(base)/answer?state=\(state)&email=not-an-address")!)
            #expect(badEmail.status == 400 && badEmail.body.contains("email address"))

            // The page answers once; a second answer of the same sign-in is refused.
            let back = try EmulatorIdPPage.answer(authUri, .newAccount(email: "ada@example.com"))
            #expect(back.absoluteString.hasPrefix(Self.continueUri + "?"))
            let twice = try FakeOAuthProvider.Browser.get(URL(string: "\(base)/answer?state=\(state)&error=access_denied")!)
            #expect(twice.status == 400 && twice.headers["location"] == nil && twice.body.contains("answered already"))

            // The app's callback with a state no sign-in has.
            let foreign = URL(string: "\(Self.continueUri)?code=abc&state=NotAStateOfOurs")!
            let (_, refused) = try await signIn(fixture, foreign, sessionId: sessionId)
            #expect(message(refused).hasPrefix("INVALID_IDP_RESPONSE"), "\(refused)")
            let (_, noStateAtAll) = try await signIn(fixture, URL(string: "\(Self.continueUri)?code=abc")!, sessionId: sessionId)
            #expect(message(noStateAtAll).hasPrefix("INVALID_IDP_RESPONSE") && message(noStateAtAll).contains("no state"))
        }
    }

    @Test func declineIsUserCancelled() async throws {
        try await EmulatorFixture.with { fixture in
            let (authUri, sessionId) = try await begin(fixture)
            let back = try EmulatorIdPPage.answer(authUri, .decline)
            let answer = query(back)
            #expect(back.absoluteString.hasPrefix(Self.continueUri + "?error=access_denied"))
            #expect(answer["state"] == query(authUri)["state"] && answer["error_description"]?.contains("declined") == true)
            #expect(answer["code"] == nil)

            let (status, refused) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(status == 400 && message(refused).hasPrefix("USER_CANCELLED : access_denied"), "\(refused)")
            let (_, again) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(message(again).hasPrefix("INVALID_IDP_RESPONSE"), "the declined sign-in is over")
            #expect(fixture.emulator.accounts.isEmpty)
        }
    }

    @Test func aTenantsSignInIsFinishedInThatTenant() async throws {
        try await EmulatorFixture.with { fixture in
            let (authUri, sessionId) = try await begin(fixture, providerId: "yahoo.com", ["tenantId": "tenant-a"])
            let back = try EmulatorIdPPage.answer(authUri, .newAccount(email: "ada@example.com"))
            let (_, outside) = try await signIn(fixture, back, sessionId: sessionId)
            #expect(message(outside) == "TENANT_ID_MISMATCH")
            let (status, inside) = try await signIn(fixture, back, sessionId: sessionId, ["tenantId": "tenant-a"])
            #expect(status == 200 && inside["tenantId"] as? String == "tenant-a" && inside["providerId"] as? String == "yahoo.com", "\(inside)")
        }
    }

    @Test func createAuthUriRefusesWhatIdentityPlatformRefuses() async throws {
        try await EmulatorFixture.with { fixture in
            let cases: [([String: Any], String)] = [
                (["providerId": "password", "continueUri": Self.continueUri], "INVALID_PROVIDER_ID"),
                (["providerId": "phone", "continueUri": Self.continueUri], "INVALID_PROVIDER_ID"),
                (["providerId": "emailLink", "continueUri": Self.continueUri], "INVALID_PROVIDER_ID"),
                (["providerId": "microsoft.com"], "MISSING_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": "not a uri"], "INVALID_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": "/callback"], "INVALID_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": "javascript://x/%0aalert(1)"], "INVALID_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri + "#top"], "INVALID_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri + "?state=mine"], "INVALID_CONTINUE_URI"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri, "customParameter": ["state": "x"]], "INVALID_ARGUMENT"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri, "customParameter": ["redirect_uri": "http://evil.example/"]],
                 "INVALID_ARGUMENT"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri, "customParameter": ["client_id": "x"]], "INVALID_ARGUMENT"),
                (["providerId": "microsoft.com", "continueUri": Self.continueUri, "customParameter": ["prompt": 1]], "INVALID_ARGUMENT"),
            ]
            for (body, code) in cases {
                let (status, reply) = try await call(fixture, "createAuthUri", body)
                #expect(status == 400 && message(reply).hasPrefix(code), "\(body): \(reply)")
            }
            for providerId in ["google.com", "apple.com", "github.com", "oidc.corp", "saml.corp"] {
                let (status, reply) = try await call(fixture, "createAuthUri", ["providerId": providerId, "continueUri": Self.continueUri + "?from=app"])
                #expect(status == 200 && reply["authUri"] as? String != nil, "\(providerId): \(reply)")
            }
        }
    }

    @Test func thePageEscapesWhatItShows() async throws {
        try await EmulatorFixture.with { fixture in
            // An account made with the emulator's JSON-claims form, which firebase-tools' widget uses.
            let claims = #"{"sub": "m-1\"><i>", "email": "x@example.com", "email_verified": true, "name": "<script>alert('x')</script> & co"}"#
            let (status, _) = try await call(fixture, "signInWithIdp", [
                "requestUri": "http://localhost", "postBody": "providerId=microsoft.com&id_token=" + claims.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                "returnSecureToken": true,
            ])
            #expect(status == 200)
            let (authUri, sessionId) = try await begin(fixture)
            let page = try EmulatorIdPPage.open(authUri)
            #expect(!page.body.contains("<script") && !page.body.contains("<i>"))
            #expect(page.body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co &lt;x@example.com&gt;"))
            #expect(EmulatorIdPPage.accounts(in: page.body, at: authUri).map(\.text) == ["<script>alert('x')</script> & co <x@example.com>"])
            // The account chosen from the page signs in as the account the JSON-claims form made.
            let (_, signedIn) = try await signIn(fixture, try EmulatorIdPPage.answer(authUri, .firstAccount), sessionId: sessionId)
            #expect(signedIn["federatedId"] as? String == #"m-1"><i>"# && signedIn["isNewUser"] as? Bool == false, "\(signedIn)")
        }
    }

    @Test func thePendingSignInsAreBoundedInNumberAndTime() throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let service = EmulatorService(configuration: .init(), clock: { now.withLock { $0 } })
        func begin() throws -> URL {
            let body = try JSONSerialization.data(withJSONObject: ["providerId": "microsoft.com", "continueUri": Self.continueUri])
            let reply = service.handle(EmulatorRequest(
                method: "POST", target: "/identitytoolkit.googleapis.com/v1/accounts:createAuthUri?key=k",
                headers: ["Content-Type": "application/json", "Host": "127.0.0.1:9099"], body: body))
            let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any] ?? [:]
            return try #require((object["authUri"] as? String).flatMap(URL.init(string:)), "\(object)")
        }
        func pageStatus(_ authUri: URL) -> Int {
            let target = authUri.path + "?" + (authUri.query ?? "")
            return service.handle(EmulatorRequest(method: "GET", target: target, headers: ["Host": "127.0.0.1:9099"])).status
        }
        let first = try begin()
        var last = first
        for _ in 0..<EmulatorService.maximumPendingIdpSignIns { last = try begin() }
        #expect(service.state.withLock { $0.idpSignIns.count } == EmulatorService.maximumPendingIdpSignIns)
        #expect(pageStatus(first) == 400, "the oldest was dropped")
        #expect(pageStatus(last) == 200)

        now.withLock { $0 += Double(EmulatorService.idpSignInLifetime) - 1 }
        #expect(pageStatus(last) == 200)
        now.withLock { $0 += 1 }
        #expect(pageStatus(last) == 400, "expired after ten minutes")
        _ = try begin()
        #expect(service.state.withLock { $0.idpSignIns.count } == 1, "the expired ones are forgotten")
    }
}
