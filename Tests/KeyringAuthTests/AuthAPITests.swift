import Dispatch
import Foundation
import KeyringTestSupport
import SecretKeychain
import Synchronization
import Testing

@testable import KeyringAuth

@Suite struct AuthAPITests {
    @Test func configureRegistersOneInstancePerAppName() {
        let apps = TwoApps()
        let defaultAuth = Auth.configure(AuthConfiguration(
            options: AuthAppOptions(apiKey: "AIzaSharedKey", appID: "1:42:linux:default", projectID: "demo"),
            store: InMemoryStore(), backend: apps.backend))
        let named = Auth.configure(apps.configuration("api-tests-app"))
        #expect(Auth.auth() === defaultAuth)
        #expect(Auth.auth(app: "api-tests-app") === named)
        #expect(Auth.auth(app: "api-tests-app") !== defaultAuth)
    }

    /// Giving each app its own appName and then calling `Auth.auth()` used to trap with only
    /// "No Auth is configured for app [DEFAULT]": the message now names what is configured and the way to it.
    @Test func anUnconfiguredAppNameIsAnsweredWithTheConfiguredOnesAndHowToReachThem() {
        let message = Auth.notConfiguredMessage(app: "[DEFAULT]", configured: ["app-a", "app-b"])
        #expect(message.hasPrefix(#"No Auth is configured for app "[DEFAULT]"; configured: "app-a", "app-b"."#))
        #expect(message.contains(#"Auth.auth(app: "app-a")"#))
        #expect(message.contains("the instance Auth.configure(_:) returned"))
        #expect(message.contains("apps are told apart by appID"))

        let nothing = Auth.notConfiguredMessage(app: "[DEFAULT]", configured: [])
        #expect(nothing == #"No Auth is configured for app "[DEFAULT]"; call FirebaseApp.configure() first (it reads the app's "#
            + #"GoogleService-Info.plist), or Auth.configure(_:) (it returns the instance)."#)
        #expect(Auth.notConfiguredMessage(app: "a\"b", configured: ["x\ny"]).contains(#""x\ny""#), "names are quoted and escaped")
    }

    @Test func listenersAndCompletionsRunOnTheChosenQueue() async throws {
        let queue = DispatchQueue(label: "app.callbacks")
        let marker = DispatchSpecificKey<String>()
        queue.setSpecific(key: marker, value: "app.callbacks")
        var configuration = TwoApps().configuration("app-a")
        configuration.callbackQueue = queue
        let auth = Auth(configuration: configuration)

        let onQueue = Mutex<[Bool]>([])
        auth.addStateDidChangeListener { _, _ in onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: marker) != nil) } }
        let uid: String? = await withCheckedContinuation { continuation in
            auth.signInAnonymously { result, _ in
                onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: marker) != nil) }
                continuation.resume(returning: result?.user.uid)
            }
        }
        #expect(uid != nil && uid == auth.currentUser?.uid)
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(onQueue.withLock { $0 } == [true, true, true], "registration, sign-in notification, completion")
    }

    @Test func completionHandlersReportErrors() async {
        let auth = TwoApps().launch("app-a")
        let error: Error? = await withCheckedContinuation { continuation in
            auth.signIn(withEmail: "nobody@example.com", password: "whatever") { _, error in continuation.resume(returning: error) }
        }
        #expect((error as? AuthError)?.code == .userNotFound)
        let nullUser: Error? = await withCheckedContinuation { continuation in
            auth.updateCurrentUser(nil) { continuation.resume(returning: $0) }
        }
        #expect((nullUser as? AuthError)?.code == .nullUser)
    }

    @Test func deletingTheUserDeletesTheAccountAndSignsOut() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let user = try await auth.createUser(withEmail: "del@example.com", password: "secret1").user
        try await user.delete()
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil)
        await #expect { try await auth.signIn(withEmail: "del@example.com", password: "secret1") } throws: {
            ($0 as? AuthError)?.code == .userNotFound
        }
    }

    @Test func reloadTakesTheBackendsProfileAndSavesIt() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let user = try await auth.createUser(withEmail: "r@example.com", password: "secret1").user
        #expect(user.email == "r@example.com")
        #expect(user.providerData.map(\.providerID) == ["password"])
        try await user.reload()
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.email == "r@example.com")
    }

    @Test func anUnexpiredTokenIsReturnedWithoutARefresh() async throws {
        let apps = TwoApps()
        let auth = apps.launch("app-a")
        let user = try await auth.signInAnonymously().user
        let token = try await user.getIDToken()
        #expect(token == user.storedRecord.tokens.idToken)
        #expect(!apps.backend.calls.contains("refresh"))
        let refreshed = try await user.getIDToken(forcingRefresh: true)
        #expect(refreshed != token)
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.storedRecord.tokens.idToken == refreshed, "saved for the group")
    }
}
