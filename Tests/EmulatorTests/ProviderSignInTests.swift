import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Synchronization
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The project's own provider (`microsoft.com`, `yahoo.com`) as Firebase's `OAuthProvider` signs in with it on Linux,
/// end to end on loopback: `accounts:createAuthUri` on the bundled emulator, whose provider page a stand-in browser
/// completes as a person would (``EmulatorIdPPage``), the redirect back to `http://localhost:PORT/`, then
/// `accounts:signInWithIdp` with the URL and the session.
@Suite struct ProviderSignInTests {
    typealias BrowserRun = DesktopOAuthFlowTests.BrowserRun

    private func provider(_ id: String, _ auth: Auth, browser: DesktopBrowser) -> OAuthProvider {
        let provider = OAuthProvider(providerID: id, auth: auth)
        provider.browser = browser
        provider.timeout = .seconds(60)
        return provider
    }

    private func query(of url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { a, _ in a }
    }

    @Test func microsoftSignsInAsTheSameUserEachTimeOnBothLoopbackAddresses() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let run = BrowserRun()
        let microsoft = provider("microsoft.com", auth, browser: run.browser { url in
            try EmulatorIdPPage.complete(url, .signIn(email: "ada@example.com", displayName: "Ada Lovelace"))
        })
        microsoft.customParameters = ["tenant": "organizations", "prompt": "select_account"]
        microsoft.scopes = ["Mail.Read"]
        let first = try await auth.signIn(with: microsoft, uiDelegate: nil)
        let opened = try await run.openedURL()
        let page = try await run.page()
        #expect(page.status == 200 && page.body.contains("You can close this tab"))
        let parameters = query(of: opened)
        #expect(parameters["providerId"] == "microsoft.com" && parameters["tenant"] == "organizations" && parameters["prompt"] == "select_account")
        #expect(parameters["scope"]?.contains("Mail.Read") == true, "\(parameters)")
        let redirect = try #require(parameters["redirect_uri"].flatMap(URL.init(string:)))
        #expect(redirect.scheme == "http" && redirect.host == "localhost" && redirect.path == "/" && redirect.port != nil)
        #expect(!opened.absoluteString.contains("sessionId"), "the session never goes in a URL")
        #expect(first.user.email == "ada@example.com" && first.user.providerData.map(\.providerID) == ["microsoft.com"])
        #expect(first.additionalUserInfo?.isNewUser == true && first.additionalUserInfo?.providerID == "microsoft.com")
        try auth.signOut()

        // Again, the browser coming back over ::1 where this machine has it: the same Firebase user.
        let address = IPv6Loopback.isBindable ? "::1" : "127.0.0.1"
        microsoft.browser = run.browser { url in try EmulatorIdPPage.complete(url, .signIn(email: "ada@example.com", displayName: nil), via: address) }
        let again = try await auth.signIn(with: microsoft, uiDelegate: nil)
        #expect(again.user.uid == first.user.uid && again.additionalUserInfo?.isNewUser == false)
        #expect(auth.currentUser?.uid == first.user.uid)
    }

    @Test func anEmailUserLinksMicrosoftAndReauthenticatesWithIt() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse").user
        let run = BrowserRun()
        let microsoft = provider("microsoft.com", auth, browser: run.browser { url in
            try EmulatorIdPPage.complete(url, .signIn(email: "grace.ms@example.com", displayName: "Grace"))
        })
        microsoft.sessionID = "the-apps-own-session"  // Identity Platform takes the caller's
        let linked = try await user.link(with: microsoft, uiDelegate: nil)
        #expect(linked.user.uid == user.uid && Set(linked.user.providerData.map(\.providerID)) == ["password", "microsoft.com"])
        let again = try await user.reauthenticate(with: microsoft, uiDelegate: nil)
        #expect(again.user.uid == user.uid)
        // Firebase's completion-handler form, as ported code calls it.
        let (credentials, credential) = AsyncStream<AuthCredential?>.makeStream()
        microsoft.getCredentialWith(nil) { got, _ in credential.yield(got) }
        var iterator = credentials.makeAsyncIterator()
        let got = try #require(await iterator.next() ?? nil)
        #expect(got.provider == "microsoft.com")
        #expect(try await auth.signIn(with: got).user.uid == user.uid)
    }

    @Test func declinedIsCancelledAndNothingIsStored() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let run = BrowserRun()
        let yahoo = provider("yahoo.com", auth, browser: run.browser { url in try EmulatorIdPPage.complete(url, .decline) })
        let error = await authFailure { _ = try await auth.signIn(with: yahoo, uiDelegate: nil) }
        #expect(error?.code == .webContextCancelled && error?.message.contains("declined") == true, "\(String(describing: error))")
        let page = try await run.page()
        #expect(page.status == 400 && page.body.contains("declined"))
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil, "nothing stored")
    }

    @Test func aStrangersRequestIsRefusedAndTheSignInWaitsForTheProvidersAnswer() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let run = BrowserRun()
        let strangerPage = Mutex<FakeOAuthProvider.Browser.Page?>(nil)
        let microsoft = provider("microsoft.com", auth, browser: run.browser { url in
            let back = try EmulatorIdPPage.answer(url, .signIn(email: "ada@example.com"))
            // Another local process finds the port first: without the state Firebase put in the URL it is refused.
            var forged = URLComponents(url: back, resolvingAgainstBaseURL: false)!
            forged.queryItems = [URLQueryItem(name: "code", value: "forged"), URLQueryItem(name: "state", value: "someone-elses")]
            strangerPage.withLock { $0 = try? FakeOAuthProvider.Browser.get(forged.url!) }
            return try FakeOAuthProvider.Browser.get(back, asABrowser: true)
        })
        let result = try await auth.signIn(with: microsoft, uiDelegate: nil)
        #expect(result.user.email == "ada@example.com")
        #expect(strangerPage.withLock { $0?.status } == 400)
        #expect(try await run.page().status == 200)
    }

    @Test func whatFirebaseSetsItselfAndAnAbsentBrowserAreTypedErrors() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let run = BrowserRun()
        let microsoft = provider("microsoft.com", auth, browser: run.idleBrowser())
        microsoft.customParameters = ["redirect_uri": "https://example.com/"]
        let reserved = await authFailure { _ = try await microsoft.credential(with: nil) }
        #expect(reserved?.code == .invalidConfiguration && reserved?.message.contains("redirect_uri") == true)
        microsoft.customParameters = nil
        microsoft.timeout = .milliseconds(300)  // the person never comes back
        let timedOut = await authFailure { _ = try await auth.signIn(with: microsoft, uiDelegate: nil) }
        #expect(timedOut?.code == .webContextCancelled)
        microsoft.sessionID = "has a space"
        #expect(await authFailure { _ = try await microsoft.credential(with: nil) }?.code == .invalidConfiguration)
        let notAProvider = await authFailure { _ = try await OAuthProvider(providerID: "password", auth: auth).credential(with: nil) }
        #expect(notAProvider?.code == .invalidProviderID)
        #expect(auth.currentUser == nil)
    }

    /// With no browser (``DesktopBrowser/none``) the provider's URL is announced, and the person who opens it by hand
    /// finishes the sign-in: a link and a reauthentication, and Firebase's completion-handler form, all the same way.
    @Test func withNoBrowserTheAnnouncedURLIsOpenedByHandToLinkAndReauthenticate() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth()
        let user = try await auth.createUser(withEmail: "lin@example.com", password: "correct horse").user
        let microsoft = provider("microsoft.com", auth, browser: .none)
        let (pages, page) = AsyncStream<Result<Int, any Error>>.makeStream()
        let announced = Mutex<[URL]>([])
        let byHand: @Sendable (URL) -> Void = { url in
            announced.withLock { $0.append(url) }
            // The person, in a browser of their own, after reading the URL.
            do {
                try OwnThread.detach(name: "by-hand") {
                    page.yield(Result { try EmulatorIdPPage.complete(url, .signIn(email: "lin.ms@example.com", displayName: nil)).status })
                }
            } catch {
                page.yield(.failure(error))
            }
        }
        var statuses = pages.makeAsyncIterator()
        let linked = try await user.link(with: microsoft.credential(with: nil, announcing: byHand))
        #expect(try await statuses.next()?.get() == 200)
        #expect(linked.user.uid == user.uid && Set(linked.user.providerData.map(\.providerID)) == ["password", "microsoft.com"])
        let again = try await user.reauthenticate(with: microsoft.credential(with: nil, announcing: byHand))
        #expect(try await statuses.next()?.get() == 200)
        #expect(again.user.uid == user.uid && again.additionalUserInfo?.providerID == "microsoft.com")
        let (credentials, credential) = AsyncStream<AuthCredential?>.makeStream()
        microsoft.getCredentialWith(nil, announcing: byHand) { got, _ in credential.yield(got) }
        var gotten = credentials.makeAsyncIterator()
        let got = try #require(await gotten.next() ?? nil)
        #expect(try await statuses.next()?.get() == 200)
        #expect(try await auth.signIn(with: got).user.uid == user.uid)
        let urls = announced.withLock { $0 }
        #expect(urls.count == 3 && urls.allSatisfy { query(of: $0)["providerId"] == "microsoft.com" }, "\(urls)")
    }
}
