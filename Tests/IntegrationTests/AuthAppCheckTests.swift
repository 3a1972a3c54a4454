import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Subprocesses
import Synchronization
import Testing

@testable import KeyringAuth

extension KeyringTests {
    /// A project that enforces App Check on Authentication, as the bundled emulator stands in for it: apps with the debug
    /// provider or a custom provider sign in, refresh and update; without a token every call fails with the message that
    /// names App Check, and nothing changes; the token is kept in the keyring, so an app's processes make one exchange.
    @Suite struct AuthAppCheck {
        init() throws { _ = try Harness.require() }

        static let secret = "0F6E1A2B-3C4D-4E5F-8A9B-C0D1E2F3A4B5"
        static let projectID = "demo-keyring-auth"

        static func enforcingEmulator() async throws -> (AuthEmulator, AuthEmulator.Address) {
            let emulator = AuthEmulator(configuration: .init(port: 0, appCheck: .init(enforcesOnAuth: true, debugTokens: [secret])))
            return (emulator, try await emulator.start())
        }

        static func options() -> AuthAppOptions {
            AuthAppOptions(apiKey: "AIza-app-check", appID: "1:42:linux:check\(UUID().uuidString.prefix(8))", projectID: projectID)
        }

        /// An Auth of `options` on the real keyring, its requests to `address`, carrying `appCheck`'s token.
        static func auth(_ options: AuthAppOptions, _ address: AuthEmulator.Address, appCheck: AppCheck?) throws -> Auth {
            var configuration = AuthConfiguration(
                options: options, store: SecretServiceStore(),
                backend: IdentityToolkitBackend(apiKey: options.apiKey, appID: options.appID, endpoint: try .emulator(hostAndPort: address.description)),
                liveSync: false, groupChoices: .inMemory(), tokenRefresh: .disabled)
            configuration.appCheck = appCheck
            return Auth(configuration: configuration)
        }

        static func debugAppCheck(_ options: AuthAppOptions, _ address: AuthEmulator.Address, secret: String = secret) -> AppCheck {
            var environment = ProcessInfo.processInfo.environment
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = address.description
            return AppCheck.debug(options: options, debugToken: secret, store: SecretServiceStore(), environment: environment)
        }

        @Test func anAppWithTheDebugProviderSignsInRefreshesAndUpdates() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let options = Self.options()
            let auth = try Self.auth(options, address, appCheck: Self.debugAppCheck(options, address))
            let user = try await auth.signInAnonymously().user
            _ = try await user.getIDTokenResult(forcingRefresh: true)
            let change = user.createProfileChangeRequest()
            change.displayName = "Ada"
            try await change.commitChanges()
            try await user.reload()
            #expect(auth.currentUser?.displayName == "Ada")
            let checked = emulator.receivedRequests.filter { ["accounts:signUp", "accounts:update", "accounts:lookup"].contains($0.operation) }
            #expect(!checked.isEmpty && checked.allSatisfy { $0.appCheckAppID == options.appID }, "\(checked)")
            // The app launched again (a new App Check, the same keyring): the kept token, no second exchange.
            let again = try Self.auth(options, address, appCheck: Self.debugAppCheck(options, address))
            try await again.currentUser?.reload()
            #expect(emulator.appCheckExchanges.filter { $0.appID == options.appID }.count == 1, "\(emulator.appCheckExchanges)")
            try auth.signOut()
        }

        @Test func withoutATokenEveryCallFailsSayingAppCheckAndNothingChanges() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let options = Self.options()
            // A signed-in user, then the app without App Check: its calls fail, and the stored user stays.
            let signedIn = try Self.auth(options, address, appCheck: Self.debugAppCheck(options, address))
            let uid = try await signedIn.signInAnonymously().user.uid
            let withoutToken = try Self.auth(options, address, appCheck: nil)
            let other = Self.options()
            let unregistered = try Self.auth(other, address, appCheck: Self.debugAppCheck(other, address, secret: "not-registered"))
            for auth in [withoutToken, unregistered] {
                let accounts = emulator.accounts.count
                do {
                    _ = try await auth.createUser(withEmail: "grace-\(UUID().uuidString.prefix(6))@example.com", password: "a-password")
                    Issue.record("a sign-up without a valid App Check token was accepted")
                } catch let error as AuthError {
                    #expect(error.code == .internalError && error.message.hasPrefix("Firebase App Check token is invalid: "), "\(error)")
                    #expect(error.message.contains("AppCheck.setAppCheckProviderFactory"))
                }
                #expect(emulator.accounts.count == accounts, "no account made")
            }
            do {
                try await withoutToken.currentUser?.reload()
                Issue.record("a lookup without a token was accepted")
            } catch let error as AuthError {
                #expect(error.code == .internalError && error.message.contains("App Check"))
            }
            #expect(withoutToken.currentUser?.uid == uid && signedIn.currentUser?.uid == uid, "the stored user stays")
            try signedIn.signOut()
        }

        /// A provider that asks the app's backend, which mints tokens with the Admin SDK: here the emulator's
        /// `exchangeCustomToken`, as an administrator calls it.
        final class BackendProvider: AppCheckProvider {
            let address: AuthEmulator.Address
            let appID: String
            let calls = Atomic<Int>(0)

            init(address: AuthEmulator.Address, appID: String) {
                self.address = address
                self.appID = appID
            }

            func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
                calls.add(1, ordering: .relaxed)
                let url = URL(string: "http://\(address)/firebaseappcheck.googleapis.com/v1/projects/\(AuthAppCheck.projectID)/apps/\(appID):exchangeCustomToken")!
                Task {
                    do {
                        let answer = try await CurlTransport().post(
                            to: url, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer owner")],
                            body: Data(#"{"customToken":"minted-by-the-backend","ttl":"1800s"}"#.utf8), timeout: .seconds(10))
                        completion(try AppCheckExchange.token(of: answer.body, receivedAt: Date()), nil)
                    } catch {
                        completion(nil, error)
                    }
                }
            }
        }

        @Test func anAppWithACustomProviderWhoseBackendMintsTokensSignsIn() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let options = Self.options()
            let provider = BackendProvider(address: address, appID: options.appID)
            let storage = AppCheckTokenStorage(store: SecretServiceStore(), appName: options.appName, projectID: options.projectID, appID: options.appID, group: nil)
            let appCheck = AppCheck(appName: options.appName, provider: provider, storage: storage) { false }
            let auth = try Self.auth(options, address, appCheck: appCheck)
            let user = try await auth.createUser(withEmail: "katherine-\(UUID().uuidString.prefix(6))@example.com", password: "a-password").user
            _ = try await user.getIDTokenResult(forcingRefresh: true)
            let change = user.createProfileChangeRequest()
            change.displayName = "Katherine"
            try await change.commitChanges()
            try await user.reload()
            #expect(auth.currentUser?.displayName == "Katherine")
            let token = try await appCheck.token(forcingRefresh: false)
            #expect(token.expirationDate.timeIntervalSince(token.receivedAtDate) == 1800)
            #expect(provider.calls.load(ordering: .relaxed) == 1)
            #expect(emulator.appCheckExchanges.map(\.method) == [.exchangeCustomToken])
            try auth.signOut()
        }

        @Test func aProviderThatFailsGetsThePlaceholderSentAndTheRefusalReported() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let options = Self.options()
            // The App Check service cannot be reached: the exchange goes to a port nothing listens on.
            var environment = ProcessInfo.processInfo.environment
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = "127.0.0.1:9"
            let appCheck = AppCheck.debug(options: options, debugToken: Self.secret, store: SecretServiceStore(), environment: environment)
            let auth = try Self.auth(options, address, appCheck: appCheck)
            do {
                _ = try await auth.signInAnonymously()
                Issue.record("the placeholder was accepted")
            } catch let error as AuthError {
                #expect(error.code == .internalError && error.message.hasPrefix("Firebase App Check token is invalid: "), "\(error)")
            }
            #expect(emulator.accounts.isEmpty, "no account made")
            #expect(await appCheck.tokenForAuthRequest() == AppCheck.placeholderToken)
        }

        @Test func twoProcessesOfOneAppLaunchingTogetherMakeOneExchange() async throws {
            let (emulator, address) = try await Self.enforcingEmulator()
            defer { Task { await emulator.stop() } }
            let appID = Self.options().appID
            var environment = ProcessInfo.processInfo.environment
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = address.description
            environment["APP_ID"] = appID
            environment["APP_CHECK_DEBUG_TOKEN"] = Self.secret
            let bench = try Harness.product("app-check-bench")
            let launched = environment
            let results = try await withThrowingTaskGroup(of: Subprocess.Result.self) { group in
                for _ in 0..<2 { group.addTask { try await Subprocess.run(bench, ["launch"], environment: launched, limit: .seconds(120)) } }
                var results: [Subprocess.Result] = []
                for try await result in group { results.append(result) }
                return results
            }
            for result in results { #expect(result.status == 0 && result.output.hasPrefix("token until "), "\(result.output)\(result.standardError)") }
            #expect(emulator.appCheckExchanges.filter { $0.appID == appID }.count == 1, "\(emulator.appCheckExchanges)")
            #expect(!results.contains { $0.output.contains(Self.secret) || $0.standardError.contains(Self.secret) }, "the secret is never printed")
        }
    }
}
