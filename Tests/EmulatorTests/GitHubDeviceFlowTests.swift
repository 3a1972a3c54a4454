import Foundation
@testable import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Testing

/// GitHub's device flow against a fake GitHub of the tests' own (``FakeGitHub``), and its token on the emulator as
/// Firebase: each of GitHub's answers to the polling, and what ends the wait.
@Suite struct GitHubDeviceFlowTests {
    static let user = ["sub": "octocat", "email": "octo@example.com", "screen_name": "octocat"]

    private func code(_ body: () async throws -> Void) async -> AuthErrorCode? {
        await authFailure(body)?.code
    }

    @Test func theFlowWaitsThroughPendingAndSlowDownThenSignsIn() async throws {
        let github = try FakeGitHub(user: Self.user, answers: [.pending, .slowDown(interval: 0), .pending, .token])
        defer { github.stop() }
        let flow = GitHubDeviceFlow(clientID: "Iv1.test", host: github.base)
        let authorization = try await flow.start()
        #expect(authorization.userCode == "ABCD-1234" && authorization.verificationURI.path == "/login/device")
        #expect(!"\(authorization)".contains("device-"), "the device code is not shown")
        let credential = try await flow.credential(for: authorization)
        #expect(credential.provider == "github.com")

        #expect(github.codeRequests.first == ["client_id": "Iv1.test", "scope": "read:user user:email"])
        let polls = github.tokenRequests
        #expect(polls.count == 4)
        #expect(polls.allSatisfy { $0["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" && $0["client_id"] == "Iv1.test" })
        #expect(polls.allSatisfy { $0["client_secret"] == nil && $0["device_code"]?.hasPrefix("device-") == true }, "no client secret")

        // Firebase (here its emulator, which takes JSON claims as the token) signs the GitHub user in; it is stored.
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth(store: InMemoryStore())
        let user = try await auth.signIn(with: credential).user
        #expect(user.providerData.map(\.providerID) == ["github.com"] && user.email == "octo@example.com")
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.uid == user.uid)
    }

    @Test func eachRefusalIsATypedErrorAndNothingIsStored() async throws {
        let fixture = try await EmulatorFixture.start()
        let auth = try fixture.auth(store: InMemoryStore())
        let cases: [(FakeGitHub.Answer, AuthErrorCode)] = [
            (.error("access_denied"), .webSignInUserInteractionFailure), (.error("expired_token"), .webContextCancelled),
            (.error("device_flow_disabled"), .invalidClientID), (.error("incorrect_client_credentials"), .invalidClientID),
            (.error("something_else"), .internalError), (.malformed, .internalError),
        ]
        for (answer, expected) in cases {
            let github = try FakeGitHub(user: Self.user, answers: [.pending, answer])
            defer { github.stop() }
            let flow = GitHubDeviceFlow(clientID: "Iv1.test", host: github.base)
            let got = await authFailure { _ = try await auth.signIn(with: try await flow.credential(for: try await flow.start())) }
            #expect(got?.code == expected, "\(answer)")
            if case .malformed = answer {
                // Not "refused": GitHub never answers so; the person is told where to look.
                #expect(got?.message.contains("neither") == true && got?.message.contains("refused") == false, "\(got?.message ?? "")")
            }
        }
        // The code request itself refused: the device flow is off for the app, and the message says what to tick.
        let disabled = try FakeGitHub(user: Self.user, answers: [.token], codeError: "device_flow_disabled")
        defer { disabled.stop() }
        let refused = await authFailure { _ = try await GitHubDeviceFlow(clientID: "Iv1.test", host: disabled.base).start() }
        #expect(refused?.code == .invalidClientID && refused?.message.contains("Enable Device Flow") == true, "\(refused?.message ?? "")")
        // Plain http elsewhere than loopback is refused before any request.
        #expect(await code { _ = try await GitHubDeviceFlow(clientID: "x", host: URL(string: "http://github.example.com")!).start() }
            == .invalidConfiguration)
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil, "nothing stored")
    }

    @Test func aTokenRequestThatNeverAnswersEndsAtItsLimitAndCancellingEndsTheWait() async throws {
        let silent = try FakeGitHub(user: Self.user, answers: [.silent])
        defer { silent.stop() }
        var flow = GitHubDeviceFlow(clientID: "Iv1.test", host: silent.base)
        flow.requestTimeout = .milliseconds(300)
        #expect(await code { _ = try await flow.credential(for: try await flow.start()) } == .networkError)

        let waiting = try FakeGitHub(user: Self.user, answers: [.pending], interval: 60)
        defer { waiting.stop() }
        let patient = GitHubDeviceFlow(clientID: "Iv1.test", host: waiting.base)
        let authorization = try await patient.start()
        let task = Task { try await patient.credential(for: authorization) }
        task.cancel()
        await #expect(throws: AuthError.self) { _ = try await task.value }
        #expect(waiting.tokenRequests.isEmpty, "cancelled before the first poll, sixty seconds away")
    }

    @Test func slowDownPollsSlowerNeverFaster() throws {
        #expect(try GitHubDeviceFlow.interval(after: ["error": "authorization_pending"], interval: .seconds(5)) == .seconds(5))
        #expect(try GitHubDeviceFlow.interval(after: ["error": "slow_down"], interval: .seconds(5)) == .seconds(10))
        #expect(try GitHubDeviceFlow.interval(after: ["error": "slow_down", "interval": 15], interval: .seconds(5)) == .seconds(15))
        #expect(try GitHubDeviceFlow.interval(after: ["error": "slow_down", "interval": 1], interval: .seconds(5)) == .seconds(5))
        #expect(throws: AuthError.self) { try GitHubDeviceFlow.interval(after: [:], interval: .seconds(5)) }
    }
}
