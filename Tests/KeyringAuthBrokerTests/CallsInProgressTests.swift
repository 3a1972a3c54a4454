import Testing
@testable import KeyringAuthBroker

/// Calls in progress, counted per app: the surplus of one app refused at once, others still served, and an ended call
/// gives its place back.
@Suite struct CallsInProgressTests {
    @Test func anAppPastItsShareIsRefusedAndAnotherIsServed() throws {
        let calls = CallsInProgress()
        for _ in 0..<CallsInProgress.share.perApp { try calls.begin("a") }
        #expect(throws: BrokerError.self) { try calls.begin("a") }
        try calls.begin("b")
        calls.end("a")
        try calls.begin("a")
    }

    @Test func theShareHoldsUnderConcurrentCalls() async {
        let calls = CallsInProgress()
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<(CallsInProgress.share.perApp * 3) {
                group.addTask { (try? calls.begin("a")) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == CallsInProgress.share.perApp)
    }
}
