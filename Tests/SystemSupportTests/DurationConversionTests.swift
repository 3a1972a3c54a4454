import Testing

import SystemSupport

/// The GLib timer interval the store waits for a prompt with, from the `unlockTimeout` an app configures.
@Suite struct DurationConversionTests {
    @Test func aTimerIntervalIsWholeMillisecondsAtLeastOneAndAtMostWhatItHolds() {
        #expect(Duration.milliseconds(250).timerMilliseconds == 250)
        #expect(Duration.microseconds(1_500).timerMilliseconds == 2)
        #expect(Duration.zero.timerMilliseconds == 1)
        #expect(Duration.seconds(-5).timerMilliseconds == 1)
        // The longest limit a Duration holds waits as long as a GLib timer can, rather than trapping.
        #expect(Duration.seconds(Int64.max).timerMilliseconds == UInt32.max)
    }
}
