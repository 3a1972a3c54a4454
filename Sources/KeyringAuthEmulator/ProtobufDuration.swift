/// A protocol buffer `Duration` in JSON, as App Check's `ttl` is written: whole seconds, an optional fraction of up to
/// nine digits, and `s` (`"3600s"`, `"1800.500s"`).
enum ProtobufDuration {
    /// The whole seconds of `text` (its fraction dropped); `nil` when it is not such a duration, is negative, or has
    /// more than 12 digits of seconds.
    static func seconds(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        guard (1...12).contains(whole.count), whole.allSatisfy(\.isASCIIDigit) else { return nil }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        }
        return Int64(whole)
    }

    /// `seconds` as such a duration: `"3600s"`.
    static func text(seconds: Int64) -> String { "\(seconds)s" }
}

extension Character {
    /// `0` to `9`, and no other digit.
    fileprivate var isASCIIDigit: Bool { asciiValue.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
}
