import Foundation
import SystemSupport

/// The payload of a JWT (a Firebase ID token), decoded locally as Firebase's SDKs decode it, without
/// checking the signature: the token came from the identity service or from the keychain, and the
/// keychain is writable by any process of the session (see the trust model), so the decoding is
/// bounded: at most ``maximumTokenBytes`` of token and ``maximumDepth`` levels of nesting.
struct IDTokenClaims: Sendable {
    /// Longer tokens are refused (Firebase's are about 1 KB; custom claims add at most 1,000 bytes).
    static let maximumTokenBytes = 32 * 1024
    /// Deeper nesting of objects and arrays is refused.
    static let maximumDepth = 16

    /// Every claim, JSON `null`s left out.
    let claims: [String: any Sendable]

    /// - Throws: ``AuthError`` with ``AuthErrorCode/malformedJWT`` saying what is wrong; never the token itself.
    init(decoding token: String) throws(AuthError) {
        guard token.utf8.count <= Self.maximumTokenBytes else {
            throw Self.malformed("it is \(token.utf8.count) bytes, more than the \(Self.maximumTokenBytes) an ID token may have")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.malformed("it has \(parts.count) parts, not the three of a JWT") }
        guard let payload = Self.base64URLDecoded(parts[1]) else { throw Self.malformed("its payload is not base64url") }
        let value: JSONClaim
        do {
            value = try JSONDecoder().decode(JSONClaim.self, from: payload)
        } catch let error as DecodingError {
            throw Self.malformed("its payload is not JSON within the limits (\(error.readableDescription))")
        } catch {
            throw Self.malformed("its payload is not JSON (\(error))")
        }
        guard case .object(let object) = value else { throw Self.malformed("its payload is not a JSON object") }
        claims = object.compactMapValues(\.sendableValue)
    }

    /// The user the token names: `user_id`, else `sub`.
    var uid: String? {
        let uid = (claims["user_id"] as? String) ?? (claims["sub"] as? String)
        return uid?.isEmpty == false ? uid : nil
    }

    /// A claim holding seconds since 1970, as a date.
    func date(_ name: String) throws(AuthError) -> Date {
        let seconds: Double
        switch claims[name] {
        case let value as Int: seconds = Double(value)
        case let value as Double: seconds = value
        default: throw Self.malformed("it has no \(name) time")
        }
        guard seconds.isFinite, abs(seconds) < 1e11 else { throw Self.malformed("its \(name) time is out of range") }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The `firebase` claim's string field `name`.
    func firebaseField(_ name: String) -> String? {
        (claims["firebase"] as? [String: any Sendable])?[name] as? String
    }

    static func malformed(_ reason: String) -> AuthError {
        AuthError(.malformedJWT, "The ID token cannot be decoded: \(reason). Sign in again to get a new one.")
    }

    static func base64URLDecoded(_ text: Substring) -> Data? { Base64URL.decode(text) }
}

/// A JSON value, decoded with a bound on nesting.
enum JSONClaim: Decodable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([JSONClaim]), object([String: JSONClaim])

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= IDTokenClaims.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "nested deeper than \(IDTokenClaims.maximumDepth) levels"))
        }
        if let object = try? decoder.container(keyedBy: Key.self) {
            var values: [String: JSONClaim] = [:]
            for key in object.allKeys { values[key.stringValue] = try object.decode(JSONClaim.self, forKey: key) }
            self = .object(values)
        } else if var array = try? decoder.unkeyedContainer() {
            var values: [JSONClaim] = []
            while !array.isAtEnd { values.append(try array.decode(JSONClaim.self)) }
            self = .array(values)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let integer = try? single.decode(Int.self) {
                self = .integer(integer)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    /// As Swift values: `String`, `Bool`, `Int`, `Double`, `[any Sendable]`, `[String: any Sendable]`; `nil` for `null`.
    var sendableValue: (any Sendable)? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .integer(let value): value
        case .number(let value): value
        case .string(let value): value
        case .array(let values): values.compactMap(\.sendableValue)
        case .object(let values): values.compactMapValues(\.sendableValue)
        }
    }
}
