import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// Stored items are untrusted input: anyone in the session can plant one. `keyring-auth` prints
    /// what they hold escaped and lists what it cannot read; arguments are checked before parsing.
    @Suite struct CLIUntrustedData {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        /// A user record as `Auth` stores it, with the given fields.
        static func record(uid: String, email: String?, displayName: String?, apiKey: String) throws -> String {
            var object: [String: Any] = [
                "version": 1, "uid": uid, "isAnonymous": false, "hasEmailPassword": true, "emailVerified": false,
                "providerData": [] as [Any], "apiKey": apiKey, "appID": "1:42:linux:planted",
                "tokens": ["idToken": "id\u{1B}[2Jtoken", "refreshToken": "refresh", "expirationDate": 1_900_000_000_000] as [String: Any],
            ]
            object["email"] = email
            object["displayName"] = displayName
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }

        /// Bytes that steer a terminal: none may reach human output raw.
        static func containsTerminalControls(_ text: String) -> Bool {
            text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }
        }

        static let uid = "evil\u{1B}[1Auid"
        static let email = "\u{1B}]0;pwned\u{07}@example.com"
        static let displayName = "\u{1B}[2Jname\u{9B}"

        @Test func storedFieldsArePrintedEscapedByListShowAndWatch() async throws {
            let group = uniqueGroup()
            // The service attribute (the API key) with escapes where `list` shortens it.
            let apiKey = "AIzaS\u{1B}]0;x\u{07}-\(UUID().uuidString.prefix(8))-\u{1B}[1A"
            let path = try RawSecretService.createWithoutReplacing(
                attributes: [
                    "xdg:schema": SecretServiceSchema.name, "service": apiKey, "account": "firebase_auth_firebase_user",
                    "scope": "group", "access-group": group.rawValue,
                ],
                label: "planted", secret: try Self.record(uid: Self.uid, email: Self.email, displayName: Self.displayName, apiKey: apiKey))
            defer { _ = try? SecretServiceStore().removeAll(in: group) }
            #expect(path.hasPrefix(cli.harness.defaultCollection + "/"))

            let list = try await cli.run(["list"])
            #expect(list.status == 0, "\(list.standardError)")
            let row = try #require(list.output.split(separator: "\n").first { $0.contains(group.rawValue) }.map(String.init))
            #expect(!Self.containsTerminalControls(list.output), "\(list.output.debugDescription)")
            #expect(row.contains("evil\\u{1B}[1Auid"))
            #expect(row.contains("\\u{1B}]0;pwned\\u{7}@example.com"))
            #expect(row.contains("AIzaS\\u{1B}]…\\u{1B}[1A"), "shortened by characters, then escaped: \(row)")

            let json = try #require(try JSONSerialization.jsonObject(with: try await cli.run(["list", "--json"]).standardOutput) as? [[String: Any]])
            let entry = try #require(json.first { $0["accessGroup"] as? String == group.rawValue })
            #expect(entry["uid"] as? String == Self.uid, "JSON carries the value itself, escaped by JSON")

            let identity = ["--api-key", apiKey, "--app-id", "1:42:linux:planted"]
            let show = try await cli.run(["show", "--group", group.rawValue, "--show-tokens"] + identity)
            #expect(show.status == 0, "\(show.standardError)")
            #expect(!Self.containsTerminalControls(show.output), "\(show.output.debugDescription)")
            #expect(show.output.contains("uid: evil\\u{1B}[1Auid"))
            #expect(show.output.contains("display name: \\u{1B}[2Jname\\u{9B}"))
            #expect(show.output.contains("id token: id\\u{1B}[2Jtoken"))

            let watch = try LineChannel([cli.program, "watch", "--group", group.rawValue] + identity)
            let now = try await watch.nextLine()
            watch.child.send(SIGINT)
            #expect(await watch.finish() == 0)
            #expect(now.contains(" now uid=evil\\u{1B}[1Auid "), "\(now.debugDescription)")
            #expect(now.contains("email=\\u{1B}]0;pwned\\u{7}@example.com"))
            #expect(!Self.containsTerminalControls(now))
        }

        @Test func errorMessagesThatEchoStoredDataAreEscaped() async throws {
            let appID = "1:42:linux:\u{1B}[2J\(UUID().uuidString.prefix(8))"
            let key = KeychainKey(service: "firebase_auth_\(appID)", account: "firebase_auth_1_corrupt_firebase_user")
            let store = SecretServiceStore()
            try await store.setData(Data("not a user".utf8), for: key, label: "corrupt test record")
            defer { _ = try? store.removeData(for: key) }
            let show = try await cli.run(["show", "--private", "--api-key", "k", "--app-id", appID, "--app-name", "corrupt"])
            #expect(show.status == 1)
            #expect(show.standardError.contains("cannot be read") && show.standardError.contains("\\u{1B}[2J"))
            #expect(!Self.containsTerminalControls(show.standardError), "\(show.standardError.debugDescription)")
            #expect(show.standardError.split(separator: "\n").count == 1)
        }

        @Test func anotherClientsListingPrintsStoredValuesEscaped() async throws {
            let group = uniqueGroup()
            let key = KeychainKey(service: "svc\u{1B}[2J\(UUID().uuidString.prefix(8))", account: "acct\u{9B}1A", accessGroup: group)
            let store = SecretServiceStore()
            try await store.setData(.text("x"), for: key, label: "label\u{1B}]0;title\u{07}")
            defer { _ = try? store.removeAll(in: group) }
            let list = try await Subprocess.run(try Harness.product("keychain-probe"), ["list", "--group", group.rawValue])
            #expect(list.status == 0, "\(list.standardError)")
            #expect(list.output.contains("svc\\u{1B}[2J") && list.output.contains("acct\\u{9B}1A") && list.output.contains("label\\u{1B}]0;title\\u{7}"))
            #expect(!Self.containsTerminalControls(list.output), "\(list.output.debugDescription)")
        }

        @Test func anInvisibleCharacterInAGroupIsExitTwo() async throws {
            for group in ["TEAMID.com.example.\u{202E}1puorg", "TEAMID.com.example.group\u{200B}1", "\u{FEFF}TEAMID.g"] {
                let show = try await cli.run(["show", "--group", group, "--api-key", "k", "--app-id", "1:42:linux:x"])
                #expect(show.status == 2, "\(group.debugDescription): \(show.standardError)")
                #expect(show.standardError.contains("invisible or formatting character"))
                #expect(!Self.containsTerminalControls(show.standardError))
            }
        }

        @Test func anArgumentThatIsNotUTF8IsExitTwo() async throws {
            // A shell passes the byte 0xFF as it is; Swift alone would make it U+FFFD.
            let result = try await Subprocess.run(
                "/bin/sh", ["-c", #""$0" show --group "$(printf 'TEAMID.\377')" --api-key k --app-id 1:42:linux:x"#, cli.program])
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError == "keyring-auth: argument 3 is not valid UTF-8; pass every argument as UTF-8 text (check the locale or the script's encoding).\n")
        }
    }
}
