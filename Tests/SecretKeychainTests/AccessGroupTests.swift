import Foundation
import SecretKeychain
import Testing

@Suite struct AccessGroupTests {
    @Test(arguments: ["TEAMID.com.example.group1", "g", "group.com.example-app_1", "ünïcode.组", String(repeating: "a", count: 255)])
    func acceptsPrintableIdentifiers(_ identifier: String) throws {
        #expect(try AccessGroup(identifier).rawValue == identifier)
    }

    @Test(arguments: [
        ("", AccessGroup.Violation.empty),
        (String(repeating: "a", count: 256), .tooLong(byteCount: 256)),
        (String(repeating: "é", count: 128), .tooLong(byteCount: 256)),
        ("TEAMID.com example", .containsWhitespace),
        ("TEAMID.com\texample", .containsWhitespace),
        ("TEAMID\n", .containsWhitespace),
        ("a\u{00A0}b", .containsWhitespace),
        ("a\u{0000}b", .containsControlCharacter),
        ("a\u{0007}b", .containsControlCharacter),
        ("a\u{007F}b", .containsControlCharacter),
        ("a\u{009B}b", .containsControlCharacter),
        ("TEAMID.com.example.\u{202E}1puorg", .containsInvisibleCharacter("\u{202E}")),
        ("TEAMID.com.example.group\u{200B}1", .containsInvisibleCharacter("\u{200B}")),
        ("\u{FEFF}TEAMID.com.example.group1", .containsInvisibleCharacter("\u{FEFF}")),
        ("TEAMID.g\u{2066}x", .containsInvisibleCharacter("\u{2066}")),
        ("TEAMID.g\u{00AD}x", .containsInvisibleCharacter("\u{00AD}")),
        ("TEAMID.g\u{3164}x", .containsInvisibleCharacter("\u{3164}")),
        ("TEAMID.g\u{FE0F}x", .containsInvisibleCharacter("\u{FE0F}")),
        ("TEAMID.g\u{E000}x", .containsInvisibleCharacter("\u{E000}")),
        ("TEAMID.g\u{E0041}x", .containsInvisibleCharacter("\u{E0041}")),
    ])
    func rejectsWithTheRuleBroken(_ identifier: String, _ violation: AccessGroup.Violation) {
        #expect(throws: KeychainError.invalidAccessGroup(identifier, violation: violation)) {
            try AccessGroup(identifier)
        }
    }

    @Test func errorMessageNamesTheRuleAndTheFix() {
        let error = KeychainError.invalidAccessGroup("a b", violation: .containsWhitespace)
        #expect(error.description.contains("\"a b\" is not a valid access group: it contains white space"))
        #expect(error.description.contains("TEAMID.com.example.group1"))
    }

    @Test func anInvisibleCharacterIsNamedByItsCodePoint() {
        let error = KeychainError.invalidAccessGroup("x", violation: .containsInvisibleCharacter("\u{202E}"))
        #expect(error.description.contains("it contains U+202E, an invisible or formatting character"))
    }

    @Test func decodingValidatesToo() throws {
        let decoded = try JSONDecoder().decode([AccessGroup].self, from: Data(#"["TEAMID.g"]"#.utf8))
        #expect(decoded == [try AccessGroup("TEAMID.g")])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([AccessGroup].self, from: Data(#"["with space"]"#.utf8))
        }
    }
}
