import KeyringAuth
import Synchronization

/// The sign-ins the broker runs that wait for the person (`SignInWithBrowser`, `FinishGitHubSignIn`): one at a time for each app, at most
/// ``maximumFlows`` in all, each cancelled when the client that asked for it leaves the bus. A flow holds a
/// thread, a listening socket and a pipe for up to five minutes: without these bounds, calls piled up until the
/// broker could start no thread.
final class BrowserFlows: Sendable {
    static let maximumFlows = 8

    private struct Flow {
        var client: String
        var task: Task<AuthCredential, any Error>
    }

    /// The running flows, by the app they run for (``CallerIdentity/app``).
    private let flows = Mutex<[String: Flow]>([:])

    /// Runs `body` as the flow of `app`, asked for by `client`, unless one of `app` already runs or the broker runs
    /// ``maximumFlows``.
    func run(
        for app: String, client: String, _ body: @escaping @Sendable () async throws -> AuthCredential
    ) async throws -> AuthCredential {
        let task = try flows.withLock { flows throws(BrokerError) -> Task<AuthCredential, any Error> in
            guard flows[app] == nil else {
                throw BrokerError(.failed, "A browser sign-in of this app is already waiting for the browser; finish or close it there "
                    + "first (it ends by itself after five minutes, or when the app that asked for it leaves the bus).")
            }
            guard flows.count < Self.maximumFlows else {
                throw BrokerError(.failed, "The broker runs at most \(Self.maximumFlows) browser sign-ins at once; try again when one has finished.")
            }
            let task = Task { try await body() }
            flows[app] = Flow(client: client, task: task)
            return task
        }
        defer { flows.withLock { flows in if flows[app]?.client == client { flows[app] = nil } } }
        return try await task.value
    }

    /// Cancels the flows `client` asked for, and forgets them at once, so that a call that reaches the broker after the
    /// client left may start its app's next flow: it left the bus.
    func clientLeft(_ client: String) {
        let tasks = flows.withLock { flows in
            let leaving = flows.filter { $0.value.client == client }
            for app in leaving.keys { flows[app] = nil }
            return leaving.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }
}
