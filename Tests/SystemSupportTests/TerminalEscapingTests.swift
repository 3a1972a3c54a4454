import SystemSupport
import Testing

@Suite struct TerminalEscapingTests {
    @Test(arguments: [
        ("\u{1B}]0;pwned\u{07}", "\\u{1B}]0;pwned\\u{7}"),
        ("\u{1B}[2J", "\\u{1B}[2J"),
        ("a\u{1B}[1Ab", "a\\u{1B}[1Ab"),
        ("line\nbreak\r\ttab", "line\\u{A}break\\u{D}\\u{9}tab"),
        ("del\u{7F}", "del\\u{7F}"),
        ("csi\u{9B}2J", "csi\\u{9B}2J"),
        ("TEAMID.com.example.\u{202E}1puorg", "TEAMID.com.example.\\u{202E}1puorg"),
        ("zero\u{200B}width\u{FEFF}", "zero\\u{200B}width\\u{FEFF}"),
        ("sep\u{2028}\u{2029}", "sep\\u{2028}\\u{2029}"),
        ("nul\u{0}", "nul\\u{0}"),
    ])
    func controlAndInvisibleCharactersAreEscaped(_ raw: String, _ escaped: String) {
        #expect(raw.escapedForTerminal == escaped)
        #expect(!escaped.unicodeScalars.contains { $0.isControlOrInvisible })
    }

    @Test(arguments: ["plain", "ünïcode 组 😀", "me@example.com", "back\\slash", ""])
    func printableTextIsUnchanged(_ text: String) {
        #expect(text.escapedForTerminal == text)
    }
}
