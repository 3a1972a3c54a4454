import Synchronization
import SystemSupport
import Testing

/// The process's one deadline timer: an action runs once its delay has passed, never after it is cancelled.
@Suite struct DeadlineTimerTests {
    @Test func anActionRunsAfterItsDelayInTheOrderOfTheirDeadlines() async throws {
        let order = Mutex<[Int]>([])
        let clock = ContinuousClock()
        let start = clock.now
        // The timer's thread runs once the first is scheduled: the second cannot fail to start it.
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            do throws(OwnThreadFailure) {
                _ = try DeadlineTimer.shared.schedule(after: .milliseconds(200)) {
                    order.withLock { $0.append(2) }
                    done.resume()
                }
            } catch {
                done.resume(throwing: error)
                return
            }
            _ = try? DeadlineTimer.shared.schedule(after: .milliseconds(50)) { order.withLock { $0.append(1) } }
        }
        #expect(clock.now - start >= .milliseconds(200))
        #expect(order.withLock { $0 } == [1, 2])
    }

    @Test func aCancelledActionNeverRuns() async throws {
        let ran = Atomic(false)
        let cancelled = try DeadlineTimer.shared.schedule(after: .milliseconds(20)) { ran.store(true, ordering: .sequentiallyConsistent) }
        DeadlineTimer.shared.cancel(cancelled)
        // A later action on the same thread has run: the cancelled one, due earlier, would have run before it.
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            do throws(OwnThreadFailure) {
                _ = try DeadlineTimer.shared.schedule(after: .milliseconds(60)) { done.resume() }
            } catch {
                done.resume(throwing: error)
            }
        }
        let didRun = ran.load(ordering: .sequentiallyConsistent)
        #expect(!didRun)
    }
}
