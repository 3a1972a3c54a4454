import Synchronization
import SystemSupport
import Testing

/// The process's one deadline timer: an action runs once its delay has passed, never after it is cancelled.
@Suite struct DeadlineTimerTests {
    @Test func anActionRunsAfterItsDelayInTheOrderOfTheirDeadlines() async {
        let order = Mutex<[Int]>([])
        let clock = ContinuousClock()
        let start = clock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = DeadlineTimer.shared.schedule(after: .milliseconds(200)) {
                order.withLock { $0.append(2) }
                done.resume()
            }
            _ = DeadlineTimer.shared.schedule(after: .milliseconds(50)) { order.withLock { $0.append(1) } }
        }
        #expect(clock.now - start >= .milliseconds(200))
        #expect(order.withLock { $0 } == [1, 2])
    }

    @Test func aCancelledActionNeverRuns() async {
        let ran = Atomic(false)
        let cancelled = DeadlineTimer.shared.schedule(after: .milliseconds(20)) { ran.store(true, ordering: .sequentiallyConsistent) }
        DeadlineTimer.shared.cancel(cancelled)
        // A later action on the same thread has run: the cancelled one, due earlier, would have run before it.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = DeadlineTimer.shared.schedule(after: .milliseconds(60)) { done.resume() }
        }
        let didRun = ran.load(ordering: .sequentiallyConsistent)
        #expect(!didRun)
    }
}
