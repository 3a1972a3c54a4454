import Foundation
import KeyringAuth

// GitHub's device flow, in two calls: `StartGitHubSignIn` asks GitHub for a code the person enters in a browser, and
// `FinishGitHubSignIn` waits until they have.
extension Broker {
    /// Asks GitHub for a device code and keeps it as a step of this connection's; answers the step's handle, the code,
    /// where to enter it, and for how many seconds it holds.
    func startGitHubSignIn(
        clientID: String, scopes: [String]?, scope: AuthScope, app: String, client: String
    ) async throws -> [OpaquePointer?] {
        var flow = GitHubDeviceFlow(clientID: clientID, host: gitHubHost)
        if let scopes { flow.scopes = scopes }
        flow.logger = logger
        // The slot is the app's before GitHub is asked (one request at a time per app), and given back on failure.
        let handle = try pendingSteps.reserve(client: client, app: app, scope: scope)
        let authorization: GitHubDeviceAuthorization
        let lifetime: Duration
        do {
            authorization = try await flow.start()
            lifetime = .seconds(max(1, authorization.expirationDate.timeIntervalSinceNow.rounded(.down)))
            try pendingSteps.fill(handle, with: .gitHubDevice(flow, authorization), lifetime: lifetime)
        } catch {
            letGo(pendingSteps.finish(handle))
            throw error
        }
        return [
            GVariants.string(handle), GVariants.string(authorization.userCode), GVariants.string(authorization.verificationURI.absoluteString),
            GVariants.int64(lifetime.components.seconds),
        ]
    }

    /// Waits for the person to enter the code of the step `handle`, one wait per app as a browser sign-in, ended when
    /// the client leaves the bus; answers GitHub's credential. The step is this call's while it waits, and is given
    /// back when the wait fails, for another try while the code holds.
    func finishGitHubSignIn(
        _ handle: String, scope: AuthScope, app: String, client: String, isHost: Bool
    ) async throws -> AuthCredential {
        let taken = try pendingSteps.take(handle, client: client, scope: scope)
        guard case .gitHubDevice(let flow, let authorization) = taken.step else {
            letGo(pendingSteps.giveBack(taken))
            throw BrokerError(.invalidArgument, "That handle is not a GitHub sign-in's; start one with StartGitHubSignIn.")
        }
        let credential: AuthCredential
        do {
            credential = try await browserFlows.run(for: app, client: client, isHost: isHost) { try await flow.credential(for: authorization) }
        } catch {
            letGo(pendingSteps.giveBack(taken))
            throw error
        }
        letGo(pendingSteps.finish(handle))
        return credential
    }
}
