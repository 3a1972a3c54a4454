import Testing
@testable import KeyringAuthBroker

/// The clients that left lately: remembered up to the capacity, the oldest forgotten first.
@Suite struct DepartedClientsTests {
    @Test func theOldestIsForgottenPastTheCapacity() {
        var departed = DepartedClients()
        for index in 0...DepartedClients.capacity { departed.insert(":1.\(index)") }
        #expect(!departed.contains(":1.0"))
        #expect(departed.contains(":1.1"))
        #expect(departed.contains(":1.\(DepartedClients.capacity)"))
    }

    @Test func aNameInsertedTwiceTakesOnePlace() {
        var departed = DepartedClients()
        departed.insert(":1.0")
        for index in 0..<DepartedClients.capacity { departed.insert(":1.\(index)") }
        #expect(departed.contains(":1.0"), "the second insertion of :1.0 took no place of its own")
    }

    @Test func theGateRefusesAClientThatLeft() {
        let gate = ClientGate()
        #expect(throws: Never.self) { try gate.admit(":1.5") }
        gate.markLeft(":1.5")
        #expect(gate.hasLeft(":1.5"))
        #expect(throws: BrokerError.self) { try gate.admit(":1.5") }
    }
}
