extension Duration {
    /// The duration in seconds, with its fraction: for APIs that take a `TimeInterval`.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in milliseconds, with its fraction: for figures and millisecond time-outs.
    package var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }

    /// The duration in microseconds, with its fraction: GLib's monotonic clock's unit.
    package var inMicroseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }

    /// The duration as a GLib timer's interval (`g_timeout_source_new`): whole milliseconds, at
    /// least 1, and at most what the interval holds (about 49 days), however long the duration.
    package var timerMilliseconds: UInt32 {
        UInt32(min(max(1, inMilliseconds.rounded(.up)), Double(UInt32.max)))
    }

    /// `5 s`, `0.25 s`: the way limits appear in messages.
    package var formattedSeconds: String {
        let value = inSeconds
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
