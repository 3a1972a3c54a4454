import KeyringAuth
import Synchronization

/// The sign-ins the broker runs that wait for the person (`SignInWithBrowser`, `LinkWithBrowser`,
/// `ReauthenticateWithBrowser`, `FinishGitHubSignIn`, a phone verification's page): one at a time for each app, at most ``maximumFlows`` in all, of
/// which the last ``keptForHost`` only for host processes (the person's own programs: the CLI, host apps), so that
/// sandboxed apps, however many wait at once, never take every place. Each is cancelled when the client that asked for
/// it leaves the bus, and none is started for a client that has left (``ClientGate``, checked under this table's lock).
/// A flow holds a thread, a listening socket and a pipe for up to five minutes: without these bounds, calls piled up
/// until the broker could start no thread.
final class BrowserFlows: Sendable {
    static let maximumFlows = 16
    static let keptForHost = 4

    private struct Flow {
        var client: String
        var isHost: Bool
        var cancel: @Sendable () -> Void
    }

    /// The running flows, by the app they run for (``CallerIdentity/app``).
    private let flows = Mutex<[String: Flow]>([:])
    private let clients: ClientGate

    init(clients: ClientGate) {
        self.clients = clients
    }

    /// Runs `body` as the flow of `app`, asked for by `client` (a host process's when `isHost`), unless `client` has
    /// left, a flow of `app` already runs, or the broker's places are taken.
    func run<Value: Sendable>(
        for app: String, client: String, isHost: Bool, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let task = try flows.withLock { flows throws(BrokerError) -> Task<Value, any Error> in
            try clients.admit(client)
            guard flows[app] == nil else {
                throw BrokerError(.failed, "A browser sign-in of this app is already waiting for the browser; finish or close it there "
                    + "first (it ends by itself after five minutes, or when the app that asked for it leaves the bus).")
            }
            let limit = isHost ? Self.maximumFlows : Self.maximumFlows - Self.keptForHost
            let counted = isHost ? flows.count : flows.values.count { !$0.isHost }
            guard counted < limit, flows.count < Self.maximumFlows else {
                throw BrokerError(.failed, "The broker runs at most \(Self.maximumFlows) browser sign-ins at once (\(Self.keptForHost) of "
                    + "them kept for programs outside a sandbox); try again when one has finished.")
            }
            let task = Task { try await body() }
            flows[app] = Flow(client: client, isHost: isHost, cancel: { task.cancel() })
            return task
        }
        defer { flows.withLock { flows in if flows[app]?.client == client { flows[app] = nil } } }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Cancels the flows `client` asked for, and forgets them at once, so that a call that reaches the broker after the
    /// client left may start its app's next flow: it left the bus.
    func clientLeft(_ client: String) {
        let tasks = flows.withLock { flows in
            let leaving = flows.filter { $0.value.client == client }
            for app in leaving.keys { flows[app] = nil }
            return leaving.values.map(\.cancel)
        }
        for cancel in tasks { cancel() }
    }

    /// How many flows run.
    var count: Int { flows.withLock { $0.count } }
}
