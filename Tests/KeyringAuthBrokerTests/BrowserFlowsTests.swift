import KeyringAuth
import Testing
@testable import KeyringAuthBroker

/// The bounds on the broker's browser sign-ins: one per app, sixteen in all of which four are kept for host processes,
/// none started for a client that has left, and a place freed when the client that asked leaves.
@Suite struct BrowserFlowsTests {
    /// Starts a flow that waits until it is cancelled (a browser that never comes back), and answers once it runs.
    private static func start(
        _ flows: BrowserFlows, _ app: String, client: String, isHost: Bool = false, started: AsyncStream<String>.Continuation
    ) -> Task<Void, Never> {
        Task {
            _ = try? await flows.run(for: app, client: client, isHost: isHost) {
                started.yield(app)
                try await Task.sleep(for: .seconds(600))
                throw CancellationError()
            }
        }
    }

    @Test func sandboxedAppsLeaveThePlacesKeptForHostProcessesAndALeavingClientFreesItsPlace() async throws {
        let flows = BrowserFlows(clients: ClientGate())
        let (started, starting) = AsyncStream<String>.makeStream()
        var iterator = started.makeAsyncIterator()
        let sandboxed = BrowserFlows.maximumFlows - BrowserFlows.keptForHost
        var tasks = (0..<sandboxed).map { Self.start(flows, "app\($0)", client: ":1.\($0)", started: starting) }
        for _ in 0..<sandboxed { _ = await iterator.next() }

        await #expect(throws: BrokerError.self, "one per app") {
            _ = try await flows.run(for: "app0", client: ":1.99", isHost: false) { throw CancellationError() }
        }
        do {
            _ = try await flows.run(for: "another", client: ":1.98", isHost: false) { throw CancellationError() }
            Issue.record("a sandboxed app took a place kept for host processes")
        } catch let error as BrokerError {
            #expect(error.message.contains("at most \(BrowserFlows.maximumFlows)"), "\(error.message)")
        }
        // Host processes still have their places.
        for host in 0..<BrowserFlows.keptForHost {
            tasks.append(Self.start(flows, "host\(host)", client: ":2.\(host)", isHost: true, started: starting))
            _ = await iterator.next()
        }
        await #expect(throws: BrokerError.self, "and past the total, nobody") {
            _ = try await flows.run(for: "host-more", client: ":2.99", isHost: true) { throw CancellationError() }
        }

        // The client of app0 leaves: its flow ends and its place is free at once.
        flows.clientLeft(":1.0")
        await tasks[0].value
        tasks.append(Self.start(flows, "app0", client: ":1.100", started: starting))
        #expect(await iterator.next() == "app0")
        for app in 1..<sandboxed { flows.clientLeft(":1.\(app)") }
        for host in 0..<BrowserFlows.keptForHost { flows.clientLeft(":2.\(host)") }
        flows.clientLeft(":1.100")
        for task in tasks { await task.value }
        #expect(flows.count == 0)
    }

    @Test func noFlowStartsForAClientThatHasLeft() async throws {
        let clients = ClientGate()
        let flows = BrowserFlows(clients: clients)
        clients.markLeft(":1.7")
        await #expect(throws: BrokerError.self) {
            _ = try await flows.run(for: "app", client: ":1.7", isHost: false) {
                Issue.record("the flow of a client that left started")
                throw CancellationError()
            }
        }
        #expect(flows.count == 0)
    }
}
