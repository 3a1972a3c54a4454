import FoundationEssentials
internal import CGLib

/// Base64 with the URL alphabet (RFC 4648 §5), as JWTs and PKCE use it: written without `=` padding,
/// read with or without it. GLib's `g_base64_encode` and `g_base64_decode` underneath; GLib's decoder
/// skips what is not base64, so the text is checked here first.
package enum Base64URL {
    /// The bytes as unpadded base64url text.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        guard !bytes.isEmpty else { return "" }
        let encoded = bytes.withUnsafeBufferPointer { g_base64_encode($0.baseAddress, gsize($0.count)) }!
        defer { g_free(encoded) }
        return String(String(cString: encoded).unicodeScalars.compactMap { scalar -> Character? in
            switch scalar {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: Character(scalar)
            }
        })
    }

    /// The bytes of base64url text, padded or not; `nil` when it is not base64 (a character of neither
    /// alphabet, `=` anywhere but at the end, a length no encoding has). Standard base64's `+` and `/`
    /// are read too.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="):
                padding += 1
            case _ where padding > 0:
                return nil
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"), UInt8(ascii: "/"):
                base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            default:
                return nil
            }
        }
        guard base64.count % 4 != 1, padding <= 2 else { return nil }
        guard !base64.isEmpty else { return Data() }
        base64 += Array(repeating: UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        base64.append(0)
        var length: gsize = 0
        let decoded = base64.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_base64_decode($0.baseAddress, &length) }
        }
        guard let decoded else { return nil }
        defer { g_free(decoded) }
        return Data(bytes: decoded, count: Int(length))
    }
}
