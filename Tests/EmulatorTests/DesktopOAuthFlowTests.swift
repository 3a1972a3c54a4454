import Foundation
import KeyringAuth
import Logging
import KeyringTestSupport
import SecretKeychain
import Synchronization
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The desktop OAuth sign-in end to end on loopback: the flow's listener, a fake provider written in the
/// tests (``FakeOAuthProvider``) and a stand-in browser that follows the provider's redirect, then the
/// credential signed in on the bundled emulator.
@Suite struct DesktopOAuthFlowTests {
    static let user = ["sub": "google-ada", "email": "ada@example.com", "email_verified": "true", "name": "Ada Lovelace"]

    /// What the stand-in browser did with the URL the flow opened.
    final class BrowserRun: Sendable {
        let results: AsyncStream<Result<FakeOAuthProvider.Browser.Page, any Error>>
        private let continuation: AsyncStream<Result<FakeOAuthProvider.Browser.Page, any Error>>.Continuation
        let opened: AsyncStream<URL>
        private let openedContinuation: AsyncStream<URL>.Continuation

        init() {
            (results, continuation) = AsyncStream.makeStream()
            (opened, openedContinuation) = AsyncStream.makeStream()
        }

        /// A browser that announces the URL, then runs `visit` on a thread of its own (as a person would, later).
        func browser(_ visit: @escaping @Sendable (URL) throws -> FakeOAuthProvider.Browser.Page) -> DesktopBrowser {
            .custom { url in
                self.openedContinuation.yield(url)
                do {
                    try OwnThread.detach(name: "fake-browser") { self.continuation.yield(Result { try visit(url) }) }
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        }

        /// A browser that only announces the URL (the person never comes back).
        func idleBrowser() -> DesktopBrowser {
            .custom { url in
                self.openedContinuation.yield(url)
                return nil
            }
        }

        func page() async throws -> FakeOAuthProvider.Browser.Page {
            var iterator = results.makeAsyncIterator()
            return try #require(await iterator.next()).get()
        }

        func openedURL() async throws -> URL {
            var iterator = opened.makeAsyncIterator()
            return try #require(await iterator.next())
        }
    }

    private func flow(_ provider: FakeOAuthProvider, browser: DesktopBrowser) -> DesktopOAuthFlow {
        var flow = DesktopOAuthFlow(provider: provider.provider(), clientID: provider.clientID, clientSecret: provider.clientSecret)
        flow.browser = browser
        flow.timeout = .seconds(60)
        return flow
    }

    private func expectCode<T>(
        _ code: AuthErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws(AuthError) -> T
    ) async -> AuthError? {
        do throws(AuthError) {
            _ = try await body()
            Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            return error
        }
    }

    /// The parameter `name` of `url`'s query.
    private func parameter(_ name: String, of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    /// `url` with the query parameter `name` set to `value`.
    private func replacing(_ name: String, with value: String, in url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = components.queryItems!.map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
        return components.url!
    }

    /// Whether anything still listens on 127.0.0.1:port.
    private func isListening(_ port: Int) -> Bool {
        guard let fd = try? RawTCP.connect(host: "127.0.0.1", port: port) else { return false }
        close(fd)
        return true
    }

    // MARK: Success

    @Test func theBrowserSignsInAndTheFlowReturnsTheProvidersTokensWithTheRawNonce() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        let announced = Mutex<URL?>(nil)
        let credential = try await flow(provider, browser: run.browser(FakeOAuthProvider.Browser.signIn(_:)))
            .getCredential { url in announced.withLock { $0 = url } }

        let page = try await run.page()
        #expect(page.status == 200 && page.body.contains("You can close this tab"))
        #expect(page.headers["cache-control"] == "no-store")
        let authorization = try #require(provider.authorizations.first).parameters
        #expect(announced.withLock { $0 }.map { parameter("state", of: $0) } == authorization["state"], "the announced URL is the one opened")
        #expect(authorization["response_type"] == "code" && authorization["client_id"] == provider.clientID)
        #expect(authorization["scope"] == "openid email profile")
        #expect(authorization["code_challenge_method"] == "S256")
        #expect(authorization["code_challenge"]?.count == 43, "base64url of 32 bytes, unpadded")
        #expect(authorization["state"]?.count == 43 && authorization["state"]?.contains("=") == false)
        let redirect = try #require(authorization["redirect_uri"])
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/"))

        #expect(credential.provider == "google.com")
        let idToken = try #require(credential.idToken)
        #expect(credential.accessToken?.hasPrefix("access-") == true)
        let payload = try #require(PKCE.bytes(base64URL: idToken.split(separator: ".", omittingEmptySubsequences: false)[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(claims["sub"] as? String == "google-ada")
        #expect(claims["nonce"] as? String == authorization["nonce"], "the ID token carries the nonce sent")
        #expect(authorization["nonce"]?.count == 64, "SHA-256 of the raw nonce, in hex, as Firebase compares it")
        #expect(provider.tokenRequests == 1)
        #expect(!String(describing: credential).contains(idToken), "printing a credential shows no token")

        // A second callback (the tab reloaded, or another page replaying it) finds nothing listening.
        let redirectPort = try #require(URLComponents(string: redirect)?.port)
        #expect(!isListening(redirectPort))
        #expect(throws: (any Error).self) { try FakeOAuthProvider.Browser.get(URL(string: redirect + "?code=again&state=x")!) }
        #expect(provider.tokenRequests == 1, "no second exchange")
    }

    @Test func theCredentialSignsInOnTheEmulatorAndIsStored() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let fixture = try await EmulatorFixture.start()
        let store = InMemoryStore()
        let auth = try fixture.auth(store: store)
        let run = BrowserRun()
        let credential = try await flow(provider, browser: run.browser(FakeOAuthProvider.Browser.signIn(_:))).getCredential()

        let result = try await auth.signIn(with: credential)
        #expect(result.user.providerData.map(\.providerID) == ["google.com"] && result.user.providerData.first?.uid == "google-ada")
        #expect(result.user.email == "ada@example.com" && result.additionalUserInfo?.isNewUser == true)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.uid == result.user.uid, "saved")
        #expect(try await run.page().status == 200)
    }

    /// GitHub's web flow: a loopback redirect with PKCE and state, the client secret at the token endpoint, an access
    /// token and no ID token, which Firebase (the emulator) takes as a GitHub credential.
    @Test func gitHubsWebFlowGivesAnAccessTokenFirebaseTakes() async throws {
        let github = try FakeOAuthProvider(user: ["sub": "octo-web", "email": "octo-web@example.com"], style: .gitHub)
        defer { github.stop() }
        let credential = try await flow(github, browser: BrowserRun().browser(FakeOAuthProvider.Browser.signIn(_:))).getCredential()
        #expect(credential.provider == "github.com" && credential.idToken == nil && credential.accessToken?.isEmpty == false)
        #expect(github.authorizations.first?.parameters["scope"] == "read:user user:email")
        #expect(DesktopOAuthProvider.github.tokenEndpoint.absoluteString == "https://github.com/login/oauth/access_token")
        let fixture = try await EmulatorFixture.start()
        let user = try await fixture.auth(store: InMemoryStore()).signIn(with: credential).user
        #expect(user.providerData.map(\.providerID) == ["github.com"] && user.email == "octo-web@example.com")
    }

    /// Microsoft's multi-tenant endpoint: its discovery names the issuer template `…/{tenantid}/v2.0`, and the ID token
    /// is checked against its own tenant's issuer (`tid`), as MSAL checks it; the emulator signs the user in.
    @Test func aMultiTenantIssuerIsCheckedWithTheTokensOwnTenant() async throws {
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let microsoft = try FakeOAuthProvider(user: ["sub": "ms-ada", "email": "ada@contoso.example"], style: .microsoft(tenant: tenant))
        defer { microsoft.stop() }
        let discovered = try await DesktopOAuthProvider.discover(providerID: "oidc.microsoft", issuer: microsoft.issuer)
        #expect(discovered.issuer == "\(microsoft.base)/{tenantid}/v2.0")
        var flow = DesktopOAuthFlow(provider: discovered, clientID: microsoft.clientID, clientSecret: microsoft.clientSecret)
        flow.browser = BrowserRun().browser(FakeOAuthProvider.Browser.signIn(_:))
        let credential = try await flow.getCredential()
        let fixture = try await EmulatorFixture.start()
        let user = try await fixture.auth(store: InMemoryStore()).signIn(with: credential).user
        #expect(user.providerData.map(\.providerID) == ["oidc.microsoft"] && user.email == "ada@contoso.example")
    }

    @Test func anExplicitFreePortIsUsed() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        // A browser keeps its side of the connection open: the flow's listener closes first, so its port is left
        // in TIME_WAIT.
        var flow = flow(provider, browser: BrowserRun().browser { url in
            try FakeOAuthProvider.Browser.get(try FakeOAuthProvider.Browser.redirect(for: url), asABrowser: true)
        })
        flow.redirectPath = "/oauth2/callback"
        // A port free a moment ago: another process may take it before the flow listens (it is then refused before
        // anything is opened, and held by that process), and the run starts again with a fresh one.
        for attempt in 1...5 {
            let (probe, port) = try RawTCP.silentListener()
            close(probe)
            flow.port = UInt16(port)
            let (before, requests) = (provider.authorizations.count, provider.tokenRequests)
            let first: Result<OAuthCredential, AuthError>
            do throws(AuthError) { first = .success(try await flow.getCredential()) } catch { first = .failure(error) }
            if case .failure(let error) = first, error.code == .webContextAlreadyPresented, isListening(port), attempt < 5 {
                continue  // another process holds the port
            }
            _ = try first.get()
            #expect(provider.authorizations.last?.parameters["redirect_uri"] == "http://127.0.0.1:\(port)/oauth2/callback")
            // The same port again at once, while the first flow's connection is in TIME_WAIT (SO_REUSEADDR).
            _ = try await flow.getCredential()
            #expect(provider.authorizations.count == before + 2 && provider.tokenRequests == requests + 2)
            return
        }
    }

    @Test func anOpenIDConnectProviderIsFoundByItsIssuer() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let discovered = try await DesktopOAuthProvider.discover(providerID: "oidc.fake", issuer: provider.issuer)
        #expect(discovered == provider.provider("oidc.fake"))
        var flow = DesktopOAuthFlow(provider: discovered, clientID: provider.clientID, clientSecret: provider.clientSecret)
        flow.browser = BrowserRun().browser(FakeOAuthProvider.Browser.signIn(_:))
        #expect(try await flow.getCredential().provider == "oidc.fake")
        // Nothing answers there: a network error.
        let (silent, port) = try RawTCP.silentListener()
        close(silent)
        _ = await expectCode(.networkError) { () async throws(AuthError) in
            try await DesktopOAuthProvider.discover(providerID: "oidc.none", issuer: "http://127.0.0.1:\(port)")
        }
    }

    // MARK: Refusals

    @Test func requestsWithoutTheFlowsStateAreRefusedAndTheFlowWaitsForTheRealRedirect() async throws {
        // Any local process can find the port (/proc/net/tcp), and a web page can send a request to it: neither
        // may end the sign-in. Each gets a 400 page; the real redirect, after them, signs in.
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        let refused = Mutex<[Int]>([])
        let browser = run.browser { url in
            let redirect = try FakeOAuthProvider.Browser.redirect(for: url)
            var bare = URLComponents(url: redirect, resolvingAgainstBaseURL: false)!
            bare.query = "code=attacker-code"
            for forged in [self.replacing("state", with: "forged-state", in: redirect), bare.url!] {
                let page = try FakeOAuthProvider.Browser.get(forged)
                refused.withLock { $0.append(page.status) }
            }
            return try FakeOAuthProvider.Browser.get(redirect)
        }
        let credential = try await flow(provider, browser: browser).getCredential()
        #expect(credential.idToken != nil)
        #expect(refused.withLock { $0 } == [400, 400], "a wrong state and no state are refused")
        let page = try await run.page()
        #expect(page.status == 200 && page.body.contains("Sign-in finished"))
        #expect(provider.tokenRequests == 1, "only the real redirect's code was exchanged")
    }

    @Test func aRedirectNamingAnotherIssuerIsRefused() async throws {
        // RFC 9207: the authorization response's `iss` tells which provider answered (a mix-up attack names another).
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let browser = BrowserRun().browser { url in
            let redirect = try FakeOAuthProvider.Browser.redirect(for: url)
            return try FakeOAuthProvider.Browser.get(self.replacing("iss", with: "https://evil.example", in: redirect))
        }
        let error = await expectCode(.webSignInUserInteractionFailure) { () async throws(AuthError) in
            try await flow(provider, browser: browser).getCredential()
        }
        #expect(error?.message.contains("issuer") == true)
        #expect(provider.tokenRequests == 0)
    }

    @Test func theUserDecliningInTheBrowserIsACancellation() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        let browser = run.browser { url in
            // The provider's consent page, declined: back to the app with error=access_denied and the state.
            var components = URLComponents(string: self.parameter("redirect_uri", of: url)!)!
            components.queryItems = [
                URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "error_description", value: "The user said <no>"),
                URLQueryItem(name: "state", value: self.parameter("state", of: url)),
            ]
            return try FakeOAuthProvider.Browser.get(components.url!)
        }
        let error = await expectCode(.webContextCancelled) { () async throws(AuthError) in
            try await flow(provider, browser: browser).getCredential()
        }
        #expect(error?.message.contains("declined") == true)
        let page = try await run.page()
        #expect(page.status == 400 && page.body.contains("&lt;no&gt;") && !page.body.contains("<no>"), "the provider's text is escaped")
        #expect(provider.tokenRequests == 0)
    }

    @Test func aProvidersOtherErrorIsAUserInteractionFailureAndAnUnknownClientIsInvalidClientID() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        for (error, code) in [("server_error", AuthErrorCode.webSignInUserInteractionFailure), ("unauthorized_client", .invalidClientID)] {
            let browser = BrowserRun().browser { url in
                var components = URLComponents(string: self.parameter("redirect_uri", of: url)!)!
                components.queryItems = [URLQueryItem(name: "error", value: error), URLQueryItem(name: "state", value: self.parameter("state", of: url))]
                return try FakeOAuthProvider.Browser.get(components.url!)
            }
            _ = await expectCode(code) { () async throws(AuthError) in try await flow(provider, browser: browser).getCredential() }
        }
    }

    @Test func aWrongClientSecretIsInvalidClientID() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        var flow = flow(provider, browser: BrowserRun().browser(FakeOAuthProvider.Browser.signIn(_:)))
        flow.clientSecret = "not-the-secret"
        _ = await expectCode(.invalidClientID) { () async throws(AuthError) in try await flow.getCredential() }
        #expect(provider.tokenRequests == 1)
    }

    @Test func otherRequestsAreAnsweredOrDroppedAndTheFlowKeepsWaiting() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        let browser = run.browser { url in
            let redirect = try FakeOAuthProvider.Browser.redirect(for: url)
            let port = redirect.port!
            // A browser's favicon request: 404, and the flow goes on.
            let favicon = try FakeOAuthProvider.Browser.get(URL(string: "http://127.0.0.1:\(port)/favicon.ico")!)
            guard favicon.status == 404 else { throw RawTCP.Failure(description: "favicon: \(favicon.status)") }
            // A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) sends its own Host.
            let target = "\(redirect.path)?\(redirect.query!)"
            let rebound = String(decoding: try RawTCP.exchange(
                host: "127.0.0.1", port: port, bytes: Array("GET \(target) HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n".utf8)), as: UTF8.self)
            guard rebound.hasPrefix("HTTP/1.1 400") else { throw RawTCP.Failure(description: "rebinding: \(rebound)") }
            // A peer that is not 127.0.0.1 itself is dropped unanswered.
            let other = try Self.exchange(from: "127.0.0.2", port: port, bytes: Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
            guard other.isEmpty else { throw RawTCP.Failure(description: "127.0.0.2 was answered") }
            // A POST is not a redirect.
            let post = String(decoding: try RawTCP.exchange(
                host: "127.0.0.1", port: port, bytes: Array("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)), as: UTF8.self)
            guard post.hasPrefix("HTTP/1.1 405") else { throw RawTCP.Failure(description: "POST: \(post)") }
            return try FakeOAuthProvider.Browser.get(redirect)
        }
        let credential = try await flow(provider, browser: browser).getCredential()
        #expect(credential.idToken != nil)
        #expect(try await run.page().status == 200)
    }

    @Test func aConnectionThatSendsNothingHoldsUpNobody() async throws {
        // Browsers open speculative connections and send nothing on some; the redirect on another connection
        // is answered while that one is still open (here for longer than the whole flow's time limit).
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let idle = Mutex<Int32>(-1)
        defer { idle.withLock { if $0 >= 0 { close($0) } } }
        let run = BrowserRun()
        var flow = flow(provider, browser: run.browser { url in
            let redirect = try FakeOAuthProvider.Browser.redirect(for: url)
            let preconnect = try RawTCP.connect(host: "127.0.0.1", port: redirect.port!)
            idle.withLock { $0 = preconnect }
            return try FakeOAuthProvider.Browser.get(redirect)
        })
        flow.timeout = .seconds(5)  // less than the 10 s a connection may take to send its request
        #expect(try await flow.getCredential().idToken != nil)
        #expect(try await run.page().status == 200)
    }

    @Test func theCompletionHandlerFormGivesTheCredentialOnTheQueue() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let queue = DispatchQueue(label: "desktop-oauth-completion")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let flow = flow(provider, browser: BrowserRun().browser(FakeOAuthProvider.Browser.signIn(_:)))
        let (credential, error, onQueue) = await withCheckedContinuation { continuation in
            flow.getCredential(queue: queue) { credential, error in
                continuation.resume(returning: (credential, error, DispatchQueue.getSpecific(key: key) == true))
            }
        }
        #expect(credential?.idToken != nil && error == nil && onQueue)
    }

    // MARK: Time limit, cancellation, port

    @Test func nobodyComingBackEndsAtTheTimeLimit() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        var flow = flow(provider, browser: run.idleBrowser())
        flow.timeout = .milliseconds(200)
        let error = await expectCode(.webContextCancelled) { () async throws(AuthError) in try await flow.getCredential() }
        #expect(error?.message.contains("within") == true)
        let url = try await run.openedURL()
        let redirectURI = try #require(parameter("redirect_uri", of: url))
        let port = try #require(URLComponents(string: redirectURI)?.port)
        #expect(!isListening(port), "the port is released")
    }

    @Test func cancellingTheTaskEndsTheWaitAndReleasesThePort() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let run = BrowserRun()
        let flow = flow(provider, browser: run.idleBrowser())
        let task = Task { () async -> Result<OAuthCredential, AuthError> in
            do throws(AuthError) { return .success(try await flow.getCredential()) } catch { return .failure(error) }
        }
        let url = try await run.openedURL()  // the flow is waiting for the browser
        let redirectURI = try #require(parameter("redirect_uri", of: url))
        let port = try #require(URLComponents(string: redirectURI)?.port)
        task.cancel()
        let error = await expectCode(.webContextCancelled) { () async throws(AuthError) in try await task.value.get() }
        #expect(error?.message.contains("cancelled") == true)
        #expect(!isListening(port))
        #expect(provider.tokenRequests == 0)
    }

    @Test func aPortInUseIsRefusedBeforeAnythingIsOpened() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let (holder, port) = try RawTCP.silentListener()
        defer { close(holder) }
        let opened = Mutex(false)
        var flow = flow(provider, browser: .custom { _ in opened.withLock { $0 = true }; return nil })
        flow.port = UInt16(port)
        let error = await expectCode(.webContextAlreadyPresented) { () async throws(AuthError) in try await flow.getCredential() }
        #expect(error?.message.contains("\(port)") == true)
        #expect(!opened.withLock { $0 } && provider.authorizations.isEmpty)
    }

    @Test func plainHTTPEndpointsOffLoopbackAndAnEmptyClientIDAreRefused() async throws {
        let insecure = DesktopOAuthProvider.openIDConnect(
            providerID: "oidc.example", issuer: nil, authorizationEndpoint: URL(string: "http://login.example.com/authorize")!,
            tokenEndpoint: URL(string: "https://login.example.com/token")!)
        _ = await expectCode(.invalidConfiguration) { () async throws(AuthError) in
            try await DesktopOAuthFlow(provider: insecure, clientID: "c").getCredential()
        }
        _ = await expectCode(.invalidClientID) { () async throws(AuthError) in
            try await DesktopOAuthFlow(provider: .google, clientID: "").getCredential()
        }
    }

    @Test func nothingSecretIsLogged() async throws {
        let provider = try FakeOAuthProvider(user: Self.user)
        defer { provider.stop() }
        let recorder = LogRecorder()
        let run = BrowserRun()
        var flow = flow(provider, browser: run.browser(FakeOAuthProvider.Browser.signIn(_:)))
        flow.logger = recorder.logger
        let credential = try await flow.getCredential()
        let logged = Logger.Level.allCases.flatMap { recorder.messages(at: $0) }.joined(separator: "\n")
        #expect(!logged.isEmpty, "the steps are logged")
        let authorization = try #require(provider.authorizations.first).parameters
        for secret in [credential.idToken, credential.accessToken, authorization["state"], authorization["code_challenge"]] {
            #expect(!logged.contains(try #require(secret)))
        }
        #expect(!logged.contains("code-"), "no authorization code")
    }

    /// Sends `bytes` from a socket bound to `source` and returns what came back before the peer closed (reads bounded
    /// at 60 s, as ``RawTCP/connect(host:port:)``'s).
    static func exchange(from source: String, port: Int, bytes: [UInt8]) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connected = withUnsafePointer(to: &local) { local in
            withUnsafePointer(to: &remote) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } == 0
                    && remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } == 0
            }
        }
        guard connected else { throw RawTCP.Failure(description: "connect from \(source): \(errno)") }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return try RawTCP.readUntilClosed(fd)
    }
}
