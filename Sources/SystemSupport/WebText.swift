/// Text for the small HTML pages a browser is shown: the desktop OAuth flow's redirect pages and the emulator's
/// provider page.
package enum HTML {
    /// `text` for HTML text and quoted attribute values: `&`, `<`, `>`, `"` and `'` as character references.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// The OAuth 2.0 parameters of a provider's sign-in that Firebase (Identity Platform's `accounts:createAuthUri`) sets
/// itself, which a custom parameter may not: refused by the desktop flow before any request, and by the emulator.
package enum OAuthParameters {
    package static let reserved: Set<String> = ["client_id", "response_type", "scope", "redirect_uri", "state"]
}
