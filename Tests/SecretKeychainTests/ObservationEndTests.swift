import Foundation
@testable import SecretKeychain
import Synchronization
import Testing

/// An observation whose source is gone for good ends by itself: it reports why, once, and is over.
@Suite struct ObservationEndTests {
    private final class Calls: Sendable {
        let changes = Mutex(0)
        let ends = Mutex<[KeychainError]>([])
        let stops = Mutex(0)
    }

    private static let reason = KeychainError.noSessionBus(detail: "the session bus went away")

    private func observation(_ calls: Calls) -> KeychainObservation {
        let observation = KeychainObservation { _ in calls.changes.withLock { $0 += 1 } }
        observation.whenCancelled { calls.stops.withLock { $0 += 1 } }
        observation.whenEnded { reason in calls.ends.withLock { $0.append(reason) } }
        return observation
    }

    private let change = KeychainChange(key: KeychainKey(service: "s", account: "a"), kind: .stored)

    @Test func endingReportsTheReasonOnceAndStopsTheSource() {
        let calls = Calls()
        let observation = observation(calls)
        #expect(!observation.isCancelled && observation.endReason == nil)
        observation.end(Self.reason)
        observation.end(.noProvider(detail: "again"))
        observation.deliver(change)
        observation.cancel()
        #expect(observation.isCancelled, "what Auth.isLiveSyncActive reads")
        #expect(observation.endReason == Self.reason)
        #expect(calls.ends.withLock { $0 } == [Self.reason])
        #expect(calls.stops.withLock { $0 } == 1)
        #expect(calls.changes.withLock { $0 } == 0)
    }

    @Test func aHandlerRegisteredAfterTheEndIsCalledAtOnce() {
        let observation = KeychainObservation { _ in }
        observation.end(Self.reason)
        let told = Mutex<KeychainError?>(nil)
        observation.whenEnded { reason in told.withLock { $0 = reason } }
        #expect(told.withLock { $0 } == Self.reason)
    }

    @Test func cancellingIsNotAnEnd() {
        let calls = Calls()
        let observation = observation(calls)
        observation.cancel()
        observation.end(Self.reason)
        let late = Mutex(false)
        observation.whenEnded { _ in late.withLock { $0 = true } }
        #expect(calls.ends.withLock { $0 }.isEmpty && !late.withLock { $0 })
        #expect(observation.endReason == nil && observation.isCancelled)
        #expect(calls.stops.withLock { $0 } == 1)
    }
}
