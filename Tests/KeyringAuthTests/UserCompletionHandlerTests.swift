import Dispatch
import Foundation
import KeyringTestSupport
import SecretKeychain
import Synchronization
import Testing

@testable import KeyringAuth

/// ``FakeBackend`` behind a switch that takes it offline, remembering the tokens it issued.
final class SwitchableBackend: AuthBackend {
    let base = FakeBackend()
    let offline = Atomic(false)
    private let issued = Mutex<[AuthTokens]>([])
    static let offlineError = AuthError(.networkError, "The identity service could not be reached (offline).")

    var apiKey: String { base.apiKey }
    /// The tokens issued so far, in order.
    var issuedTokens: [AuthTokens] { issued.withLock { $0 } }

    private func online() throws(AuthError) {
        if offline.load(ordering: .relaxed) { throw Self.offlineError }
    }

    private func remember(_ signIn: BackendSignIn) -> BackendSignIn {
        issued.withLock { $0.append(signIn.tokens) }
        return signIn
    }

    func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try online()
        return remember(try await base.signUpAnonymously(context: context))
    }

    func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try online()
        return remember(try await base.signUp(email: email, password: password, context: context))
    }

    func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try online()
        return remember(try await base.signIn(email: email, password: password, context: context))
    }

    func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        try online()
        return remember(try await base.signIn(with: credential, linkingTo: idToken, creatingAccount: creatingAccount, context: context))
    }

    func link(idToken: String, email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try online()
        return remember(try await base.link(idToken: idToken, email: email, password: password, context: context))
    }

    func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount {
        try online()
        return try await base.lookUp(idToken: idToken, context: context)
    }

    func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
        try online()
        return try await base.update(idToken: idToken, changes: changes, context: context)
    }

    func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) {
        try online()
        try await base.delete(idToken: idToken, context: context)
    }

    func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        try online()
        let tokens = try await base.refresh(refreshToken: refreshToken, context: context)
        issued.withLock { $0.append(tokens) }
        return tokens
    }
}

/// What a completion handler was called with, whether it ran on the app's callback queue, and how many
/// times it had been called once the queue had run everything dispatched to it.
struct Callback<Value: Sendable> {
    var value: Value
    var onCallbackQueue: Bool
    var calls: Int
}

/// How many times a handler ran.
final class CallCount: Sendable { let calls = Mutex(0) }

/// `User`'s completion-handler forms (Firebase's), as an app calls them: each calls back once, on the
/// configured callback queue, with the result or the typed error.
@Suite struct UserCompletionHandlerTests {
    let queue = DispatchQueue(label: "user.callbacks")
    let marker = DispatchSpecificKey<String>()
    let backend = SwitchableBackend()
    let auth: Auth

    init() {
        queue.setSpecific(key: marker, value: "user.callbacks")
        let name = "user-completions-\(UUID().uuidString.prefix(8))"
        auth = Auth(configuration: AuthConfiguration(
            options: AuthAppOptions(appName: name, apiKey: backend.apiKey, appID: "1:42:linux:\(name)", projectID: "demo"),
            store: InMemoryStore(), backend: backend, callbackQueue: queue, liveSync: false))
    }

    /// Starts a call with `start`, handing it a completion handler, and waits for the handler.
    func callback<Value: Sendable>(_ start: (@escaping @Sendable (Value) -> Void) -> Void) async -> Callback<Value> {
        let log = CallCount()
        let marker = marker
        let (value, onQueue): (Value, Bool) = await withCheckedContinuation { continuation in
            start { value in
                let onQueue = DispatchQueue.getSpecific(key: marker) != nil
                let first = log.calls.withLock { calls in
                    calls += 1
                    return calls == 1
                }
                if first { continuation.resume(returning: (value, onQueue)) }
            }
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        return Callback(value: value, onCallbackQueue: onQueue, calls: log.calls.withLock { $0 })
    }

    func expectOnce<Value>(_ callback: Callback<Value>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(callback.onCallbackQueue, "called on the configured callback queue", sourceLocation: sourceLocation)
        #expect(callback.calls == 1, "called once", sourceLocation: sourceLocation)
    }

    @Test func idTokensCallBackWithTheTokenOrTheError() async throws {
        let user = try await auth.signInAnonymously().user
        let stored = user.storedRecord.tokens

        let token = await callback { done in user.getIDToken { token, error in done((token, error)) } }
        expectOnce(token)
        #expect(token.value.0 == stored.idToken && token.value.1 == nil)

        let refreshed = await callback { done in user.getIDTokenForcingRefresh(true) { token, error in done((token, error)) } }
        expectOnce(refreshed)
        #expect(refreshed.value.0 == backend.issuedTokens.last?.idToken && refreshed.value.0 != stored.idToken)
        #expect(refreshed.value.1 == nil)

        // FakeBackend's tokens are no JWTs: the result is the typed error.
        let undecodable = await callback { done in user.getIDTokenResult { result, error in done((result?.token, error)) } }
        expectOnce(undecodable)
        #expect(undecodable.value.0 == nil && (undecodable.value.1 as? AuthError)?.code == .malformedJWT)

        let jwt = AuthTokenResultTests.jwt(AuthTokenResultTests.firebasePayload)
        user.record.withLock { $0.tokens.idToken = jwt }
        let decoded = await callback { done in
            user.getIDTokenResult(forcingRefresh: false) { result, error in done((result?.signInProvider, error)) }
        }
        expectOnce(decoded)
        #expect(decoded.value.0 == "google.com" && decoded.value.1 == nil)

        backend.offline.store(true, ordering: .relaxed)
        let offline = await callback { done in user.getIDTokenResult(forcingRefresh: true) { result, error in done((result, error)) } }
        expectOnce(offline)
        #expect(offline.value.0 == nil && offline.value.1 as? AuthError == SwitchableBackend.offlineError)
        #expect(auth.currentUser === user, "a network error keeps the user signed in")
    }

    @Test func linkUnlinkAndReauthenticateCallBackWithTheResultOrTheError() async throws {
        let user = try await auth.signInAnonymously().user
        let credential = EmailAuthProvider.credential(withEmail: "ada@example.com", password: "analytical")

        let linked = await callback { done in user.link(with: credential) { result, error in done((result?.user, error)) } }
        expectOnce(linked)
        #expect(linked.value.0 === user && linked.value.1 == nil)
        #expect(!user.isAnonymous && user.providerData.map(\.providerID) == ["password"])

        let again = await callback { done in user.link(with: credential) { result, error in done((result?.user, error)) } }
        expectOnce(again)
        #expect(again.value.0 == nil && (again.value.1 as? AuthError)?.code == .providerAlreadyLinked)

        let reauthenticated = await callback { done in
            user.reauthenticate(with: credential) { result, error in done((result?.user.uid, error)) }
        }
        expectOnce(reauthenticated)
        #expect(reauthenticated.value.0 == user.uid && reauthenticated.value.1 == nil)

        _ = try await backend.signUp(email: "grace@example.com", password: "compiler", tenantID: nil)
        let someoneElse = EmailAuthProvider.credential(withEmail: "grace@example.com", password: "compiler")
        let mismatch = await callback { done in
            user.reauthenticate(with: someoneElse) { result, error in done((result?.user.uid, error)) }
        }
        expectOnce(mismatch)
        #expect(mismatch.value.0 == nil && (mismatch.value.1 as? AuthError)?.code == .userMismatch)
        #expect(auth.currentUser?.uid == user.uid)

        let unlinked = await callback { done in user.unlink(fromProvider: "password") { result, error in done((result, error)) } }
        expectOnce(unlinked)
        #expect(unlinked.value.0 === user && unlinked.value.1 == nil)
        #expect(user.providerData.isEmpty)

        let nothing = await callback { done in user.unlink(fromProvider: "password") { result, error in done((result, error)) } }
        expectOnce(nothing)
        #expect(nothing.value.0 == nil && (nothing.value.1 as? AuthError)?.code == .noSuchProvider)
    }

    @Test func accountChangesCallBackWithNilOrTheErrorAndKeepTheStoredUserOnFailure() async throws {
        let user = try await auth.createUser(withEmail: "ada@example.com", password: "analytical").user

        for (name, call) in accountChanges(of: user) {
            let result = await callback { done in call { done($0) } }
            expectOnce(result)
            #expect(result.value == nil, "\(name): \(String(describing: result.value))")
        }
        #expect(backend.base.calls.filter { $0 == "update" }.count == 3, "email, password and profile")

        let stored = try auth.getStoredUser(forAccessGroup: nil)?.storedRecord
        backend.offline.store(true, ordering: .relaxed)
        for (name, call) in accountChanges(of: user) + [("delete", { user.delete(completion: $0) })] {
            let result = await callback { done in call { done($0) } }
            expectOnce(result)
            #expect(result.value as? AuthError == SwitchableBackend.offlineError, "\(name)")
        }
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.storedRecord == stored, "nothing stored changed")
        #expect(auth.currentUser === user)

        backend.offline.store(false, ordering: .relaxed)
        let deleted = await callback { done in user.delete { done($0) } }
        expectOnce(deleted)
        #expect(deleted.value == nil)
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil)
    }

    /// The calls that answer with an error or nil: reload, email, password, profile.
    func accountChanges(of user: User) -> [(String, (@escaping @Sendable (Error?) -> Void) -> Void)] {
        [
            ("reload", { user.reload(completion: $0) }),
            ("updateEmail", { user.updateEmail(to: "ada@example.org", completion: $0) }),
            ("updatePassword", { user.updatePassword(to: "difference-engine", completion: $0) }),
            ("commitChanges", { completion in
                let request = user.createProfileChangeRequest()
                request.displayName = "Ada"
                request.commitChanges(completion: completion)
            }),
        ]
    }

    /// Firebase's documented snippets (Manage users), unchanged but for the `Auth` they start from.
    @Test func firebaseStyleCodeCompilesAndRuns() async throws {
        _ = try await auth.createUser(withEmail: "ada@example.com", password: "analytical")
        let auth = auth
        let outcome = await callback { (done: @escaping @Sendable ([String]) -> Void) in
            let changeRequest = auth.currentUser?.createProfileChangeRequest()
            changeRequest?.displayName = "Ada"
            changeRequest?.commitChanges { error in
                let credential = EmailAuthProvider.credential(withEmail: "ada@example.com", password: "analytical")
                auth.currentUser?.reauthenticate(with: credential) { result, error in
                    if let error = error as NSError? {
                        done(["reauthenticate: \(error.code)"])
                        return
                    }
                    auth.currentUser?.getIDTokenForcingRefresh(true) { idToken, error in
                        if let error {
                            done(["token: \(error.localizedDescription)"])
                            return
                        }
                        let user = auth.currentUser
                        user?.delete { error in
                            done([error == nil ? "deleted" : "not deleted", idToken == nil ? "no token" : "token"])
                        }
                    }
                }
            }
        }
        expectOnce(outcome)
        #expect(outcome.value == ["deleted", "token"])
        #expect(auth.currentUser == nil)
    }

    /// Without a handler the work is still done (Firebase's completions are optional; here `nil` is
    /// passed, since a default would take top-level `try await user.delete()` from the async form).
    @Test func withoutAHandlerTheCallStillRuns() async throws {
        final class SignOut: Sendable {
            let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
            func happened() { waiting.withLock { $0?.resume(); $0 = nil } }
        }
        let user = try await auth.signInAnonymously().user
        let signOut = SignOut()
        var handle: AuthListenerHandle?
        await withCheckedContinuation { continuation in
            signOut.waiting.withLock { $0 = continuation }
            handle = auth.addStateDidChangeListener { _, current in if current == nil { signOut.happened() } }
            user.delete(completion: nil)
        }
        if let handle { auth.removeStateDidChangeListener(handle) }
        #expect(auth.currentUser == nil)
        #expect(backend.base.calls.contains("delete"))
    }

    /// A user outlives its `Auth` (one made with `Auth(configuration:)`, never registered): the handler
    /// still runs once, with the error, on the callback queue that `Auth` had, as the handlers' documentation says.
    @Test func aUserWhoseAuthIsGoneCallsBackWithTheError() async throws {
        let name = "user-orphan-\(UUID().uuidString.prefix(8))"
        let configuration = AuthConfiguration(
            options: AuthAppOptions(appName: name, apiKey: backend.apiKey, appID: "1:42:linux:\(name)", projectID: "demo"),
            store: InMemoryStore(), backend: backend, callbackQueue: queue, liveSync: false)
        var owner: Auth? = Auth(configuration: configuration)
        weak let gone = owner
        let user = try #require(try await owner?.signInAnonymously().user)
        owner = nil
        try #require(gone == nil, "the Auth was released")

        let orphan = await callback { done in user.getIDTokenForcingRefresh(true) { token, error in done((token, error)) } }
        #expect(orphan.onCallbackQueue && orphan.calls == 1)
        #expect(orphan.value.0 == nil && (orphan.value.1 as? AuthError)?.code == .internalError)
    }

    /// A sign-in's session given where an enrollment's is needed: the handler runs once, with the error, on the
    /// callback queue of the session's `Auth`.
    @Test func aSecretAskedWithASignInSessionCallsBackWithTheErrorOnTheCallbackQueue() async throws {
        let session = MultiFactorSession(pendingCredential: "pending", callbackQueue: auth.configuration.callbackQueue)
        let refused = await callback { done in TOTPMultiFactorGenerator.generateSecret(with: session) { secret, error in done((secret, error)) } }
        expectOnce(refused)
        #expect(refused.value.0 == nil && (refused.value.1 as? AuthError)?.code == .invalidMultiFactorSession)
    }

    @Test func providerIDIsFirebases() async throws {
        let user = try await auth.signInAnonymously().user
        #expect(user.providerID == "Firebase")
    }

    @Test func theRefreshTokenIsTheIssuedOneAndNeverDescribed() async throws {
        let result = try await auth.createUser(withEmail: "ada@example.com", password: "analytical")
        let user = result.user
        #expect(user.refreshToken == backend.issuedTokens.last?.refreshToken)
        #expect(user.refreshToken != nil)
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(user.refreshToken == backend.issuedTokens.last?.refreshToken, "the refreshed one")

        let secret = try #require(user.refreshToken)
        var dumped = ""
        dump(user, to: &dumped)
        var dumpedResult = ""
        dump(result, to: &dumpedResult)
        let texts = [
            user.description, String(describing: user), String(reflecting: user), "\(user)", dumped,
            String(describing: result), String(reflecting: result), dumpedResult,
        ]
        for text in texts {
            #expect(!text.contains(secret), "\(text)")
            #expect(!text.contains(user.storedRecord.tokens.idToken), "no ID token either: \(text)")
        }
        #expect(user.description == #"User(uid: "\#(user.uid)", isAnonymous: false)"#)
    }
}
