import Foundation
import SystemSupport

/// Time-based one-time passwords (RFC 6238) as authenticator apps compute them and Firebase's TOTP second
/// factor checks them: HMAC-SHA-1 over the 30-second time step, six digits, a base32 secret.
///
/// The emulator checks codes with it; the tests compute them as an authenticator app would. Checked against
/// RFC 6238's and RFC 2202's test vectors. Not constant-time: it is an emulator's.
public enum TOTP {
    /// The code for `secret` at `time`: `digits` digits of the HMAC-SHA-1 of the time step (`period` seconds).
    public static func code(secret: [UInt8], at time: Date, digits: Int = 6, period: Int = 30) -> String {
        let counter = UInt64(max(0, time.timeIntervalSince1970) / Double(period))
        let message = (0..<8).reversed().map { UInt8(truncatingIfNeeded: counter >> UInt64($0 * 8)) }
        let mac = hmacSHA1(key: secret, message: message)
        let offset = Int(mac[19] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let modulus = (0..<digits).reduce(UInt32(1)) { value, _ in value &* 10 }
        let number = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - number.count)) + number
    }

    /// The code for a base32 `secret` (as `sharedSecretKey` gives it), or `nil` when it is not base32.
    public static func code(base32Secret: String, at time: Date) -> String? {
        base32Decoded(base32Secret).map { code(secret: $0, at: time) }
    }

    // MARK: Base32 (RFC 4648, upper case, padding optional)

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32, without padding.
    static func base32(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of base32 `text` (case and padding ignored), or `nil` for another character.
    static func base32Decoded(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return output
    }

    // MARK: HMAC-SHA-1 (RFC 2104, FIPS 180-4): GLib's, through SystemSupport's Digest

    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] { Digest.hmacSHA1(key: key, message: message) }

    static func sha1(_ message: [UInt8]) -> [UInt8] { Digest.sha1(message) }
}
