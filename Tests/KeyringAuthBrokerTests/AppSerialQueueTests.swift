import Synchronization
import Testing
@testable import KeyringAuthBroker

/// How many of the work items run at once, and the most that did.
private final class Running: Sendable {
    let counts = Mutex((now: 0, most: 0))
}

/// One app's work one at a time, in order, others' beside it; nothing kept once it is done.
@Suite struct AppSerialQueueTests {
    @Test func anAppsWorkRunsOneAtATimeAndNothingIsKeptAfter() async throws {
        let queue = AppSerialQueue()
        let running = Running()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await queue.run(for: "a") {
                        running.counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        await Task.yield()
                        running.counts.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.counts.withLock { $0.most } == 1)
        #expect(queue.appsRunning == 0)
    }

    @Test func aFailureEndsItsTurn() async throws {
        let queue = AppSerialQueue()
        await #expect(throws: BrokerError.self) { try await queue.run(for: "a") { throw BrokerError(.failed, "no") } }
        #expect(try await queue.run(for: "a") { 1 } == 1)
        #expect(queue.appsRunning == 0)
    }

    @Test func anotherAppDoesNotWait() async throws {
        let queue = AppSerialQueue()
        let (released, release) = AsyncStream<Void>.makeStream()
        let (entered, entering) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await queue.run(for: "a") {
                entering.yield()
                for await _ in released { break }
            }
        }
        for await _ in entered { break }
        #expect(try await queue.run(for: "b") { 2 } == 2, "b runs while a's work waits")
        release.yield()
        try await first.value
    }
}
