import KeyringAuth
import Testing
@testable import KeyringAuthBroker

/// The bounds on the broker's browser sign-ins: one per app, eight in all, freed when the client that asked leaves.
@Suite struct BrowserFlowsTests {
    @Test func atMostEightFlowsRunAndALeavingClientFreesItsPlace() async throws {
        let flows = BrowserFlows()
        let (started, starting) = AsyncStream<String>.makeStream()
        func start(_ app: String, client: String) -> Task<Void, Never> {
            Task {
                _ = try? await flows.run(for: app, client: client) {
                    starting.yield(app)
                    try await Task.sleep(for: .seconds(600))  // a browser that never comes back; cancelled below
                    throw CancellationError()
                }
            }
        }
        var tasks = (0..<BrowserFlows.maximumFlows).map { start("app\($0)", client: ":1.\($0)") }
        var iterator = started.makeAsyncIterator()
        for _ in 0..<BrowserFlows.maximumFlows { _ = await iterator.next() }

        await #expect(throws: BrokerError.self) { _ = try await flows.run(for: "app0", client: ":1.99") { throw CancellationError() } }
        do {
            _ = try await flows.run(for: "another", client: ":1.98") { throw CancellationError() }
            Issue.record("a ninth flow ran")
        } catch let error as BrokerError {
            #expect(error.message.contains("at most \(BrowserFlows.maximumFlows)"), "\(error.message)")
        }

        // The client of app0 leaves: its flow ends and its place is free at once.
        flows.clientLeft(":1.0")
        await tasks[0].value
        tasks.append(start("app0", client: ":1.100"))
        #expect(await iterator.next() == "app0")
        for app in 1..<BrowserFlows.maximumFlows { flows.clientLeft(":1.\(app)") }
        flows.clientLeft(":1.100")
        for task in tasks { await task.value }
    }
}
