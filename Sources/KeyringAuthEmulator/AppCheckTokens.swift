import Foundation
import SystemSupport

/// The App Check tokens an emulator issues and checks: JWTs with App Check's claims, signed with HMAC-SHA-256 (`HS256`)
/// under a key made at random for each emulator, so that a check needs no state, and a forged token, or another
/// emulator's, does not pass.
struct AppCheckTokens: Sendable {
    /// What a token that passed says.
    struct Claims: Hashable, Sendable {
        /// `sub`: the app the token was issued to.
        var appID: String
        var issuedAt: Int64
        var expiresAt: Int64
        var limitedUse: Bool
    }

    /// The longest token checked; a longer header is refused unread.
    static let maximumLength = 4096
    static let issuerPrefix = "https://firebaseappcheck.googleapis.com/"

    private let key: [UInt8]
    /// The header's `kid`: which key signed the token.
    let keyID: String

    init() {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        keyID = "emulator-" + Digest.hex((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A token for `appID` of `projectID`: `iss` names the project's number where the app ID carries one
    /// (`1:<number>:<platform>:<id>`, as Firebase's), else the project ID; `aud` names both, as Firebase's tokens do.
    func issue(appID: String, projectID: String, issuedAt: Int64, lifetime: Int64, limitedUse: Bool) -> String {
        let number = Self.projectNumber(of: appID)
        var payload: [String: Any] = [
            "iss": Self.issuerPrefix + (number ?? projectID), "sub": appID,
            "aud": (number.map { ["projects/\($0)"] } ?? []) + ["projects/\(projectID)"],
            "iat": issuedAt, "exp": issuedAt + lifetime,
        ]
        if limitedUse {
            payload["limited_use"] = true
            payload["jti"] = EmulatorAccount.randomID(length: 22)
        }
        // Strings, numbers and lists of strings always serialize.
        let body = try! JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        return signed(header: #"{"alg":"HS256","kid":"\#(keyID)","typ":"JWT"}"#, payload: body)
    }

    /// `header` and `payload` as a JWT signed with this key.
    func signed(header: String, payload: Data) -> String {
        let content = "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(payload))"
        return "\(content).\(Base64URL.encode(Digest.hmacSHA256(key: key, message: Array(content.utf8))))"
    }

    /// The claims of `token` when it passes: at most ``maximumLength``, signed with this key (checked before anything of
    /// it is parsed), issued to an app ID for `projectID` (`aud`), and not expired at `now`; else `nil`.
    func verify(_ token: String, projectID: String, now: Date) -> Claims? {
        guard token.utf8.count <= Self.maximumLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        // Compared as text: one signature has one unpadded encoding, so no other spelling of it passes.
        let expected = Base64URL.encode(Digest.hmacSHA256(key: key, message: Array("\(parts[0]).\(parts[1])".utf8)))
        guard Self.equalInConstantTime(Array(parts[2].utf8), Array(expected.utf8)) else { return nil }
        guard let header = Self.object(parts[0]), header["alg"] as? String == "HS256", header["kid"] as? String == keyID,
            let payload = Self.object(parts[1]),
            (payload["iss"] as? String)?.hasPrefix(Self.issuerPrefix) == true,
            let appID = payload["sub"] as? String, Self.isAppID(appID),
            (payload["aud"] as? [Any])?.contains(where: { $0 as? String == "projects/\(projectID)" }) == true,
            let issuedAt = Self.seconds(payload["iat"]), let expiresAt = Self.seconds(payload["exp"]),
            Double(expiresAt) > now.timeIntervalSince1970
        else { return nil }
        return Claims(appID: appID, issuedAt: issuedAt, expiresAt: expiresAt, limitedUse: payload["limited_use"] as? Bool ?? false)
    }

    /// Whether `text` can be an app ID: 1 to 256 letters, digits and `:._-` (Firebase's are `1:<number>:<platform>:<id>`).
    static func isAppID(_ text: some StringProtocol) -> Bool {
        (1...256).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// The project number of a Firebase app ID, `1:<number>:<platform>:<id>`; `nil` for another form.
    static func projectNumber(of appID: String) -> String? {
        let parts = appID.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "1", (1...20).contains(parts[1].count),
            parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return String(parts[1])
    }

    /// A JSON object in base64url, as a JWT's header and payload are.
    private static func object(_ part: Substring) -> [String: Any]? {
        guard let data = Base64URL.decode(part) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// A JSON number of whole seconds, not a boolean.
    private static func seconds(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return Int64(exactly: number.doubleValue)
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
