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

    /// `5 s`, `0.25 s`: the way limits appear in messages.
    var formattedSeconds: String {
        let value = inSeconds
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
