import SystemSupport

/// A validated access-group identifier, such as `TEAMID.com.example.group1`.
///
/// Apps that use the same access group share the items stored in it. The identifier is
/// stored verbatim as a Secret Service attribute, so it must be a short, printable string: no
/// white space, control, format (bidi, zero-width), private-use or unassigned characters.
public struct AccessGroup: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The largest identifier accepted, in bytes of UTF-8.
    public static let maximumByteCount = 255

    /// The identifier, exactly as given.
    public let rawValue: String

    /// A rule an access-group identifier breaks.
    public enum Violation: Hashable, Sendable, CustomStringConvertible {
        /// The identifier is the empty string.
        case empty
        /// The identifier is longer than ``AccessGroup/maximumByteCount`` bytes of UTF-8.
        case tooLong(byteCount: Int)
        /// The identifier contains a space, tab, line break or other white space.
        case containsWhitespace
        /// The identifier contains a control character (including NUL).
        case containsControlCharacter
        /// The identifier contains a character that is invisible or reorders text (a bidi override,
        /// a zero-width or other format character, a private-use or unassigned code point), which
        /// would make two different groups look alike.
        case containsInvisibleCharacter(Unicode.Scalar)

        public var description: String {
            switch self {
            case .empty:
                return "it is empty"
            case .tooLong(let byteCount):
                return "it is \(byteCount) bytes long; the limit is \(AccessGroup.maximumByteCount) bytes of UTF-8"
            case .containsWhitespace:
                return "it contains white space"
            case .containsControlCharacter:
                return "it contains a control character"
            case .containsInvisibleCharacter(let scalar):
                let code = String(scalar.value, radix: 16, uppercase: true)
                return "it contains U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code), an invisible or formatting character"
            }
        }
    }

    /// Validates an identifier.
    ///
    /// - Parameter rawValue: The identifier, for example `TEAMID.com.example.group1`.
    /// - Throws: ``KeychainError/invalidAccessGroup(_:violation:)`` naming the rule broken.
    public init(_ rawValue: String) throws(KeychainError) {
        if let violation = Self.violation(in: rawValue) {
            throw .invalidAccessGroup(rawValue, violation: violation)
        }
        self.rawValue = rawValue
    }

    /// The first rule `candidate` breaks, or `nil` when it is a valid identifier.
    public static func violation(in candidate: String) -> Violation? {
        if candidate.isEmpty { return .empty }
        let byteCount = candidate.utf8.count
        if byteCount > maximumByteCount { return .tooLong(byteCount: byteCount) }
        for scalar in candidate.unicodeScalars {
            if scalar.properties.isWhitespace { return .containsWhitespace }
            if scalar.properties.generalCategory == .control { return .containsControlCharacter }
            if scalar.isControlOrInvisible || scalar.properties.generalCategory == .privateUse {
                return .containsInvisibleCharacter(scalar)
            }
        }
        return nil
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
