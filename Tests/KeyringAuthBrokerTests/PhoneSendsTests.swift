import Synchronization
import Testing
@testable import KeyringAuth
@testable import KeyringAuthBroker

/// The bounds on SMS codes against SMS pumping, per app: one send at a time to a number, a resend no sooner than 30 s
/// after the last, ten an hour; and five wrong codes per verification. Times come from a clock the tests move.
@Suite struct PhoneSendsTests {
    /// A clock that moves only when a test moves it.
    final class TestClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    let clock = TestClock()
    var sends: PhoneSends { PhoneSends { [clock] in clock.now } }

    private func expectTooManyRequests(_ body: () throws(BrokerError) -> Void, _ comment: Comment) {
        do throws(BrokerError) {
            try body()
            Issue.record("admitted: \(comment)")
        } catch {
            #expect(error.kind == .backend && error.message.hasPrefix("ERROR_TOO_MANY_REQUESTS: "), "\(error.message)")
        }
    }

    /// App `a`'s send to `number` is refused until `wait` has passed, and admitted then; app `b`'s meanwhile.
    private func expectRefusedUntil(_ wait: Duration, _ sends: PhoneSends, number: String, _ comment: Comment) throws {
        clock.advance(wait - .seconds(1))
        expectTooManyRequests({ () throws(BrokerError) in _ = try sends.reserve(app: "a", number: number) }, comment)
        _ = try sends.reserve(app: "b", number: number)
        clock.advance(.seconds(1))
        sends.sent(try sends.reserve(app: "a", number: number))
    }

    /// The reservations admitted of app `a`'s sends to `numbers`, asked for all at once.
    private static func admittedAtOnce(_ sends: PhoneSends, _ numbers: [String]) async -> [PhoneSends.Reservation] {
        await withTaskGroup(of: PhoneSends.Reservation?.self) { group in
            for number in numbers { group.addTask { try? sends.reserve(app: "a", number: number) } }
            return await group.reduce(into: [PhoneSends.Reservation]()) { if let reservation = $1 { $0.append(reservation) } }
        }
    }

    @Test func aNumberHasOneSendAtATimeEvenWhenCallsComeAtOnce() async throws {
        let sends = self.sends
        let admitted = await Self.admittedAtOnce(sends, Array(repeating: "+15555550100", count: 20))
        #expect(admitted.count == 1)
        _ = try sends.reserve(app: "b", number: "+15555550100")
        _ = try sends.reserve(app: "a", number: "+15555550101")
        sends.cancelled(admitted[0])
        _ = try sends.reserve(app: "a", number: "+15555550100")
    }

    @Test func aResendWaitsThirtySecondsAfterTheLastSend() throws {
        let sends = self.sends
        sends.sent(try sends.reserve(app: "a", number: "+15555550100"))
        try expectRefusedUntil(.seconds(30), sends, number: "+15555550100", "a resend")
    }

    @Test func aSendThatNeverHappenedStartsNoWait() throws {
        let sends = self.sends
        sends.cancelled(try sends.reserve(app: "a", number: "+15555550100"))
        sends.sent(try sends.reserve(app: "a", number: "+15555550100"))
        #expect(sends.appsCounted == 1)
    }

    @Test func anAppHasTenSendsAnHourEvenWhenCallsComeAtOnce() async throws {
        let sends = self.sends
        let admitted = await Self.admittedAtOnce(sends, (0..<40).map { "+1555555\(1000 + $0)" })
        #expect(admitted.count == PhoneSends.bounds.sendsPerWindow, "the sends under way count as they are admitted")
        for reservation in admitted { sends.sent(reservation) }
        try expectRefusedUntil(.seconds(3600), sends, number: "+15555559999", "an eleventh send")
    }

    @Test func appsWithNothingCountedAreForgotten() throws {
        let sends = self.sends
        sends.sent(try sends.reserve(app: "a", number: "+15555550100"))
        sends.cancelled(try sends.reserve(app: "b", number: "+15555550100"))
        #expect(sends.appsCounted == 1)
        clock.advance(.seconds(3600))
        #expect(sends.appsCounted == 0)
    }

    @Test func aVerificationEndsAtItsFifthWrongCode() {
        let verification = PhoneVerification(verificationID: "v", use: .number(.signIn))
        for tried in 1..<PhoneVerification.maximumWrongCodes {
            #expect(!verification.wrongCodeEnds(), "wrong code \(tried)")
        }
        #expect(verification.triesLeft == 1)
        #expect(verification.wrongCodeEnds())
    }

    @Test func wrongCodesTriedAtOnceAreEachCounted() async {
        let verification = PhoneVerification(verificationID: "v", use: .number(.signIn))
        let ended = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 { group.addTask { verification.wrongCodeEnds() } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(ended == 12 - (PhoneVerification.maximumWrongCodes - 1))
        #expect(verification.triesLeft == 0)
    }

    @Test func aStartedVerificationIsAStepOfItsAppEndedWhenItsClientLeaves() throws {
        let clients = ClientGate()
        let steps = PendingSteps(clients: clients)
        let scope = AuthScope(options: AuthAppOptions(apiKey: "AIza-x", appID: "1:1:linux:a", projectID: "demo"), group: nil)
        let handle = try steps.reserve(client: ":1.1", app: "a", scope: scope)
        #expect(throws: BrokerError.self, "one step started at a time per app") { try steps.reserve(client: ":1.2", app: "a", scope: scope) }
        try steps.fill(handle, with: .phone(PhoneVerification(verificationID: "v", use: .number(.link))), lifetime: .seconds(300))
        #expect(steps.count(of: "a") == (1, 1))
        clients.markLeft(":1.1")
        #expect(steps.clientLeft(":1.1").count == 1)
        #expect(steps.count(of: "a") == (0, 0))
    }

    @Test func onlyANumbersVerificationsAreInterchangeable() {
        let purposes = PhoneVerification.Purpose.allCases.filter(\.isInterchangeable).map(\.rawValue)
        #expect(purposes == ["sign-in", "link", "reauthenticate", "update"])
        #expect(PhoneVerification.Purpose.allCases.filter { !$0.needsUser } == [.signIn])
    }
}
