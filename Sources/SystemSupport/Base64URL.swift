import FoundationEssentials

/// Base64 with the URL alphabet (RFC 4648 §5), as JWTs and PKCE use it: written without `=` padding,
/// read with or without it.
package enum Base64URL {
    /// The bytes as unpadded base64url text.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(text.unicodeScalars.compactMap { scalar -> Character? in
            switch scalar {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: Character(scalar)
            }
        })
        return text
    }

    /// The bytes of base64url text, padded or not; `nil` when it is not base64 (a character of neither
    /// alphabet, `=` anywhere but at the end, a length no encoding has). Standard base64's `+` and `/`
    /// are read too.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = ""
        base64.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for scalar in text.unicodeScalars {
            switch scalar {
            case "=":
                padding += 1
                continue
            case _ where padding > 0: return nil
            case "-": base64.append("+")
            case "_": base64.append("/")
            default: base64.unicodeScalars.append(scalar)
            }
        }
        guard base64.utf8.count % 4 != 1, padding <= 2 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
