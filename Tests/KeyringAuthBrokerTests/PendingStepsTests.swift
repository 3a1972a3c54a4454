import SecretKeychain
import Testing
@testable import KeyringAuth
@testable import KeyringAuthBroker

/// The steps between two calls of a client: bounded per app, used by one call at a time, given back on failure, and
/// never kept for a client that has left.
@Suite struct PendingStepsTests {
    let scope = AuthScope(options: AuthAppOptions(apiKey: "AIza-x", appID: "1:1:linux:a", projectID: "demo"), group: nil)

    private var step: PendingSteps.Step {
        .enrollment(TOTPSecret(secretKey: "JBSWY3DPEHPK3PXP", sessionInfo: "s", hashingAlgorithm: "SHA1", codeLength: 6, period: 30))
    }

    @Test func aStepIsTakenByOneCallAtATimeAndGivenBack() throws {
        let steps = PendingSteps(clients: ClientGate())
        let handle = try steps.add(step, client: ":1.1", app: "a", scope: scope)
        let taken = try steps.take(handle, client: ":1.1", scope: scope)
        #expect(throws: BrokerError.self) { try steps.take(handle, client: ":1.1", scope: scope) }
        #expect(steps.giveBack(taken).isEmpty, "given back, it is kept")
        let again = try steps.take(handle, client: ":1.1", scope: scope)
        #expect(steps.finish(again.handle).count == 1)
        #expect(throws: BrokerError.self) { try steps.take(handle, client: ":1.1", scope: scope) }
        #expect(steps.count(of: "a") == (0, 0))
    }

    @Test func onlyTheConnectionThatGotAStepInItsScopeTakesIt() throws {
        let steps = PendingSteps(clients: ClientGate())
        let handle = try steps.add(step, client: ":1.1", app: "a", scope: scope)
        #expect(throws: BrokerError.self) { try steps.take(handle, client: ":1.2", scope: scope) }
        var other = scope
        other.group = try AccessGroup("TEAMID.com.example.g")
        #expect(throws: BrokerError.self) { try steps.take(handle, client: ":1.1", scope: other) }
    }

    @Test func aClientThatLeftIsGivenNoStepAndItsStepsEnd() throws {
        let clients = ClientGate()
        let steps = PendingSteps(clients: clients)
        let handle = try steps.add(step, client: ":1.1", app: "a", scope: scope)
        let taken = try steps.take(handle, client: ":1.1", scope: scope)
        clients.markLeft(":1.1")
        #expect(steps.clientLeft(":1.1").count == 1, "its step ends, answered to be let go of outside the lock")
        #expect(steps.giveBack(taken).count == 1, "a step given back after its client left is not kept")
        #expect(throws: BrokerError.self) { try steps.add(step, client: ":1.1", app: "a", scope: scope) }
        #expect(throws: BrokerError.self) { try steps.reserve(client: ":1.1", app: "a", scope: scope) }
        #expect(steps.count(of: "a") == (0, 0))
    }

    @Test func anAppHasItsShareAcrossConnectionsEvenWhenTheyAskAtOnce() async throws {
        let steps = PendingSteps(clients: ClientGate())
        let step = self.step
        let scope = self.scope
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for connection in 0..<40 {
                group.addTask { (try? steps.add(step, client: ":1.\(connection)", app: "a", scope: scope)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == PendingSteps.share.perApp)
        _ = try steps.add(step, client: ":2.1", app: "b", scope: scope)
    }

    @Test func anAppReservesOneSlotAtATime() throws {
        let steps = PendingSteps(clients: ClientGate())
        let handle = try steps.reserve(client: ":1.1", app: "a", scope: scope)
        #expect(throws: BrokerError.self) { try steps.reserve(client: ":1.2", app: "a", scope: scope) }
        #expect(throws: BrokerError.self) { try steps.take(handle, client: ":1.1", scope: scope) }
        try steps.fill(handle, with: step, lifetime: .seconds(60))
        _ = try steps.take(handle, client: ":1.1", scope: scope)
        _ = try steps.reserve(client: ":1.2", app: "a", scope: scope)
    }
}
