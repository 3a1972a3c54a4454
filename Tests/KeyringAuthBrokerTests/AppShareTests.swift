import Testing
@testable import KeyringAuthBroker

/// An app's share of one resource: at most its own part, and the last of the total kept for apps holding none.
@Suite struct AppShareTests {
    let share = AppShare(perApp: 4, total: 10, reserved: 3)

    @Test func anAppTakesAtMostItsPart() {
        #expect(share.admits(held: 3, inUse: 3))
        #expect(!share.admits(held: 4, inUse: 4))
    }

    @Test func theReservedPartIsForAppsHoldingNone() {
        // Seven in use: an app holding some is refused the reserved three, a newcomer is admitted.
        #expect(!share.admits(held: 1, inUse: 7))
        #expect(share.admits(held: 0, inUse: 7))
        #expect(share.admits(held: 1, inUse: 6))
    }

    @Test func nobodyPassesTheTotal() {
        #expect(!share.admits(held: 0, inUse: 10))
        #expect(share.admits(held: 0, inUse: 9))
    }
}
