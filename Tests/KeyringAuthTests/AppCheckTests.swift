import Foundation
import SecretKeychain
import Synchronization
import Testing

@testable import KeyringAuth

#if canImport(Glibc)
import Glibc
#endif

/// App Check's tokens: one fetch for concurrent callers, kept in the keyring for the app's other processes (one
/// exchange among them, behind a lock file), refreshed ahead of expiry, and the placeholder when the provider fails.
/// The keyring here is an `InMemoryStore`, chosen for these tests of the schedule; the real keyring's share of the
/// token is tested with the emulator enforcing App Check.
@Suite struct AppCheckTests {
    /// A provider the tests drive: each answer as told, counted.
    final class StubProvider: AppCheckProvider {
        enum Answer: Sendable { case token(lifetime: TimeInterval), error, silence, unsendable }
        let answer: Mutex<Answer>
        let calls = Atomic<Int>(0)
        let limitedCalls = Atomic<Int>(0)
        /// Held while set: each call waits for it to be cleared.
        let gate = Mutex(false)

        init(_ answer: Answer = .token(lifetime: 3600)) { self.answer = Mutex(answer) }

        func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
            let number = calls.add(1, ordering: .relaxed).newValue
            answer(number, completion)
        }

        func getLimitedUseToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
            let number = limitedCalls.add(1, ordering: .relaxed).newValue
            answer(-number, completion)
        }

        private func answer(_ number: Int, _ completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
            let answer = self.answer.withLock { $0 }
            Task {
                while gate.withLock({ $0 }) { await Task.yield() }
                switch answer {
                case .token(let lifetime): completion(AppCheckToken(token: "token-\(number)", expirationDate: Date().addingTimeInterval(lifetime)), nil)
                case .error: completion(nil, AppCheckError(.serverUnreachable, "stub: unreachable"))
                case .silence: break
                case .unsendable: completion(AppCheckToken(token: "a\r\nX-Injected: 1", expirationDate: Date().addingTimeInterval(3600)), nil)
                }
            }
        }
    }

    static func appCheck(
        _ provider: StubProvider, store: any KeychainStore = InMemoryStore(), runtimeDirectory: String? = nil, name: String = "app"
    ) -> AppCheck {
        let storage = AppCheckTokenStorage(store: store, appName: name, projectID: "demo-app-check", appID: "1:42:linux:check", group: nil)
        return AppCheck(appName: name, provider: provider, storage: storage, runtimeDirectory: runtimeDirectory) { false }
    }

    @Test func theRefreshComesHalfwayThroughALifePlusFiveMinutesAndFailuresBackOff() {
        let received = Date(timeIntervalSince1970: 1_000_000)
        // A one-hour token: 35 minutes after it came.
        #expect(AppCheckRefreshSchedule.refreshDate(receivedAt: received, expiration: received + 3600, now: received) == received + 2100)
        // A ten-minute token: at its expiry, not after it.
        #expect(AppCheckRefreshSchedule.refreshDate(receivedAt: received, expiration: received + 600, now: received) == received + 600)
        // Never sooner than a minute from now.
        #expect(AppCheckRefreshSchedule.refreshDate(receivedAt: received, expiration: received + 3600, now: received + 3590) == received + 3650)
        #expect(AppCheckRefreshSchedule.backoff(failures: 0, jitter: 0.5) == 0)
        #expect((1...7).map { AppCheckRefreshSchedule.backoff(failures: $0, jitter: 0) } == [30, 60, 120, 240, 480, 960, 960])
        #expect(AppCheckRefreshSchedule.backoff(failures: 2, jitter: 0.5) == 60.5)
        #expect(AppCheckRefreshSchedule.backoff(failures: 100, jitter: 0.9) == 960)
        // Fresh while five minutes are left.
        let token = AppCheckToken(token: "t", expirationDate: received + 600, receivedAtDate: received)
        #expect(AppCheckRefreshSchedule.isFresh(token, at: received + 300) && !AppCheckRefreshSchedule.isFresh(token, at: received + 301))
    }

    @Test func anExchangesAnswerIsReadWithItsDurationAndBounds() throws {
        #expect(AppCheckExchange.duration("3600s") == 3600 && AppCheckExchange.duration("1.5s") == 1.5)
        for bad in ["3600", "-1s", "1e3s", "s", "1.2.3s", "", String(repeating: "9", count: 40) + "s"] {
            #expect(AppCheckExchange.duration(bad) == nil, "\(bad)")
        }
        let now = Date(timeIntervalSince1970: 2_000_000)
        let token = try AppCheckExchange.token(of: Data(#"{"token":"eyJ.a.b","ttl":"3600s"}"#.utf8), receivedAt: now)
        #expect(token.token == "eyJ.a.b" && token.expirationDate == now + 3600 && token.receivedAtDate == now)
        for body in [#"{"ttl":"3600s"}"#, #"{"token":"t","ttl":"700000s"}"#, #"{"token":"t","ttl":"0s"}"#, #"{"token":"a b","ttl":"60s"}"#, "[]"] {
            #expect(throws: AppCheckError.self, "\(body)") { try AppCheckExchange.token(of: Data(body.utf8), receivedAt: now) }
        }
    }

    @Test func aStoredTokenIsUntrustedInput() {
        let now = Date()
        func stored(_ token: String, expiration: Double, received: Double) -> Data {
            Data(#"{"token":"\#(token)","expirationDate":\#(expiration),"receivedAtDate":\#(received),"storageVersion":2}"#.utf8)
        }
        let at = now.timeIntervalSince1970
        #expect(AppCheckTokenStorage.decode(stored("eyJ.a.b", expiration: at + 3600, received: at), now: now)?.token == "eyJ.a.b")
        #expect(AppCheckTokenStorage.decode(stored("a\\nb", expiration: at + 3600, received: at), now: now) == nil, "not a header's")
        #expect(AppCheckTokenStorage.decode(stored("t", expiration: at + 7200, received: at + 3600), now: now) == nil, "received in the future")
        #expect(AppCheckTokenStorage.decode(stored("t", expiration: at + 30 * 86400, received: at), now: now) == nil, "a month's life")
        #expect(AppCheckTokenStorage.decode(Data(repeating: 0x20, count: 20_000), now: now) == nil)
        #expect(AppCheckTokenStorage.decode(Data("{}".utf8), now: now) == nil)
    }

    @Test func concurrentCallsShareOneFetchAndAFreshTokenIsKept() async throws {
        let provider = StubProvider()
        let appCheck = Self.appCheck(provider)
        provider.gate.withLock { $0 = true }
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { try? await appCheck.token(forcingRefresh: false).token } }
            // Each caller is waiting for the one fetch, held at the gate; opened once all are in.
            group.addTask {
                provider.gate.withLock { $0 = false }
                return nil
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(tokens.compactMap { $0 }) == ["token-1"] && tokens.compactMap { $0 }.count == 20)
        #expect(provider.calls.load(ordering: .relaxed) == 1, "one fetch for twenty callers")
        #expect(try await appCheck.token(forcingRefresh: false).token == "token-1" && provider.calls.load(ordering: .relaxed) == 1)
        #expect(try await appCheck.token(forcingRefresh: true).token == "token-2")
        #expect(try await appCheck.limitedUseToken().token == "token--1" && provider.limitedCalls.load(ordering: .relaxed) == 1)
        #expect(try await appCheck.token(forcingRefresh: false).token == "token-2", "a limited-use token is not kept")
    }

    @Test func anotherProcessOfTheAppTakesTheKeyringsToken() async throws {
        let store = InMemoryStore()
        let (first, second) = (StubProvider(), StubProvider())
        let firstApp = Self.appCheck(first, store: store)
        let secondApp = Self.appCheck(second, store: store)
        let token = try await firstApp.token(forcingRefresh: false)
        #expect(try await secondApp.token(forcingRefresh: false).token == token.token && second.calls.load(ordering: .relaxed) == 0)
        // The scheduled refresh of that token: the first process makes it; the second then takes the newer one.
        #expect(try await firstApp.obtain(.refresh(replacing: token.token)).get().token == "token-2")
        #expect(try await secondApp.obtain(.refresh(replacing: token.token)).get().token == "token-2")
        #expect(second.calls.load(ordering: .relaxed) == 0, "one exchange per refresh between the two")
    }

    @Test func aProcessWaitsForAnotherProcesssExchangeAndTakesItsToken() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-check-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/keyring-auth", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = InMemoryStore()
        let provider = StubProvider()
        let appCheck = Self.appCheck(provider, store: store, runtimeDirectory: directory)
        // Another process's exchange: it holds the lock.
        let name = AppCheckExchangeLock.name(for: appCheck.storage.key.description)
        let held = open(AppCheckExchangeLock.path(name: name, in: directory), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(held >= 0 && flock(held, LOCK_EX) == 0)
        let waitsBefore = AppCheckExchangeLock.waits.load(ordering: .relaxed)
        let waiting = Task { try await appCheck.token(forcingRefresh: false).token }
        let deadline = ContinuousClock.now + .seconds(30)
        while AppCheckExchangeLock.waits.load(ordering: .relaxed) == waitsBefore, ContinuousClock.now < deadline { await Task.yield() }
        // It stores its token and lets go: the waiting process takes that token and makes no exchange.
        let others = AppCheckToken(token: "the-other-process", expirationDate: Date() + 3600)
        try await appCheck.storage.write(others)
        close(held)
        #expect(try await waiting.value == "the-other-process")
        #expect(provider.calls.load(ordering: .relaxed) == 0)
    }

    @Test func aProviderThatFailsOrSaysNothingGivesRequestsThePlaceholder() async throws {
        let failing = StubProvider(.error)
        let appCheck = Self.appCheck(failing)
        await #expect(throws: AppCheckError.self) { try await appCheck.token(forcingRefresh: false) }
        #expect(await appCheck.tokenForAuthRequest() == AppCheck.placeholderToken)
        #expect(Data(base64Encoded: AppCheck.placeholderToken) == Data(#"{"error":"UNKNOWN_ERROR"}"#.utf8))

        let silent = Self.appCheck(StubProvider(.silence))
        #expect(await silent.tokenForAuthRequest(limit: .milliseconds(300)) == AppCheck.placeholderToken, "bounded, not a hang")

        let injecting = Self.appCheck(StubProvider(.unsendable))
        do {
            _ = try await injecting.token(forcingRefresh: false)
            Issue.record("a token that would split the request's headers was taken")
        } catch let error as AppCheckError {
            #expect(error.code == .unknown && error.message.contains("visible ASCII"))
        }
        #expect(await injecting.tokenForAuthRequest() == AppCheck.placeholderToken)
    }

    @Test func aNewTokenIsNotifiedWithItsAppsName() async throws {
        let appCheck = Self.appCheck(StubProvider(), name: "notified-\(UUID().uuidString.prefix(6))")
        let (stream, continuation) = AsyncStream.makeStream(of: [String: String].self)
        let observer = NotificationCenter.default.addObserver(forName: .AppCheckTokenDidChange, object: appCheck, queue: nil) { note in
            continuation.yield((note.userInfo ?? [:]).reduce(into: [:]) { $0["\($1.key)"] = $1.value as? String })
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let token = try await appCheck.token(forcingRefresh: false)
        var notes = stream.makeAsyncIterator()
        let info = await notes.next() ?? [:]
        #expect(info[AppCheckTokenNotificationKey] == token.token && info[AppCheckAppNameNotificationKey] == appCheck.appName)
    }

    @Test func everyRequestCarriesTheClientsVersionTheAppsIDAndTheAppCheckToken() async {
        let backend = IdentityToolkitBackend(apiKey: "AIza-headers", appID: "1:42:linux:headers", endpoint: .production)
        func named(_ context: AuthRequestContext) async -> [String: String] {
            Dictionary(await backend.commonHeaders(context), uniquingKeysWith: { first, _ in first })
        }
        let headers = await named(AuthRequestContext(languageCode: "fr", appCheck: .token("eyJ.a.b")))
        #expect(headers["X-Client-Version"] == "Linux/KeyringAuth/\(KeyringAuthVersion.current)/FirebaseCore-Linux")
        #expect(headers["X-Firebase-GMPID"] == "1:42:linux:headers" && headers["X-Firebase-Locale"] == "fr")
        #expect(headers["X-Firebase-AppCheck"] == "eyJ.a.b")
        #expect(await named(AuthRequestContext(appCheck: .token("a\r\nX-Injected: 1")))["X-Firebase-AppCheck"] == AppCheck.placeholderToken)
        #expect(await named(AuthRequestContext())["X-Firebase-AppCheck"] == nil, "no App Check, no header")
        let failing = Self.appCheck(StubProvider(.error))
        #expect(await named(AuthRequestContext(appCheck: .appCheck(failing)))["X-Firebase-AppCheck"] == AppCheck.placeholderToken)
    }
}
