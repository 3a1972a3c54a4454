import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// Listings never skip an item of our schema, never hold more than one secret, and never read
    /// an item over the size limit into memory for decoding.
    @Suite struct Listing {
        let harness: Harness
        let program: String
        /// Marks this test's planted items, so that `secret-tool clear` removes exactly them.
        let testID = UUID().uuidString

        init() throws {
            harness = try Harness.require()
            program = try Harness.product("keyring-auth")
        }

        @discardableResult
        private func plant(_ attributes: [String: String], secret: String = "{}") throws -> String {
            var attributes = attributes
            attributes["xdg:schema"] = SecretServiceSchema.name
            attributes["test-id"] = testID
            return try RawSecretService.createWithoutReplacing(attributes: attributes, label: "planted \(testID)", secret: secret)
        }

        private func clearPlanted() async throws {
            try await SecretTool.run(["clear", "test-id", testID]).requireSuccess("secret-tool clear")
        }

        /// Items of our schema whose attributes form no key: no scope, a group scope without a
        /// group, an unknown scope, and a group with a bidi override.
        private static let unrecognized: [(attributes: [String: String], reason: String)] = [
            (["service": "s-noscope", "account": "firebase_auth_firebase_user"], "neither private nor group"),
            (["service": "s-nogroup", "account": "firebase_auth_firebase_user", "scope": "group"], "has no access-group attribute"),
            (["service": "s-bogus", "account": "firebase_auth_firebase_user", "scope": "bogus"], "neither private nor group"),
            (
                ["service": "s-bidi", "account": "firebase_auth_firebase_user", "scope": "group", "access-group": "TEAMID.com.example.\u{202E}1puorg"],
                "invisible or formatting character"
            ),
        ]

        @Test func itemsThatFormNoKeyAreListedAsUnrecognized() async throws {
            for item in Self.unrecognized { try plant(item.attributes) }
            let store = SecretServiceStore()
            let listing = try await store.listing(in: .all)
            let planted = listing.unrecognized.filter { $0.attributes["test-id"] == testID }
            for item in Self.unrecognized {
                let found = try #require(planted.first { $0.attributes["service"] == item.attributes["service"] }, "\(item.attributes)")
                #expect(found.reason.contains(item.reason), "\(found.reason)")
                #expect(found.label == "planted \(testID)" && found.identifier.hasPrefix(harness.defaultCollection + "/"))
            }
            #expect(!(try await store.items(in: .all)).contains { $0.key.service.hasPrefix("s-") && $0.label.hasSuffix(testID) })

            let table = try await Subprocess.run(program, ["list"])
            #expect(table.status == 0, "\(table.standardError)")
            let rows = table.output.split(separator: "\n").filter { $0.contains("test-id=\(testID)") }
            #expect(rows.count == Self.unrecognized.count, "\(table.output)")
            #expect(rows.allSatisfy { $0.contains("UNRECOGNIZED: ") })
            let bidi = try #require(rows.first { $0.contains("service=s-bidi") })
            #expect(bidi.contains("TEAMID.com.example.\\u{202E}1puorg") && !bidi.contains("\u{202E}"), "shown escaped: \(bidi)")

            let json = try #require(try JSONSerialization.jsonObject(with: try await Subprocess.run(program, ["list", "--json"]).standardOutput) as? [[String: Any]])
            let entries = json.filter { ($0["attributes"] as? [String: String])?["test-id"] == testID }
            #expect(entries.count == Self.unrecognized.count)
            #expect(entries.allSatisfy { $0["unrecognized"] as? Bool == true && $0["error"] is String })
            #expect(entries.contains { $0["accessGroup"] as? String == "TEAMID.com.example.\u{202E}1puorg" }, "JSON carries the value")
            try await clearPlanted()
        }

        @Test func anOversizedItemIsReportedNotRead() async throws {
            let group = uniqueGroup()
            let apiKey = "AIza-oversized-\(UUID().uuidString.prefix(8))"
            let key = KeychainKey(service: apiKey, account: "firebase_auth_firebase_user", accessGroup: group)
            let size = KeychainLimits.maximumSecretSize * 3
            try plant(
                ["service": key.service, "account": key.account, "scope": "group", "access-group": group.rawValue],
                secret: String(repeating: "x", count: size))
            let store = SecretServiceStore()

            await #expect(throws: KeychainError.self) { try await store.data(for: key) }
            do {
                _ = try await store.data(for: key)
            } catch {
                guard case .oversizedItem(let item, size, KeychainLimits.maximumSecretSize) = error else {
                    Issue.record("expected oversizedItem, got \(error)")
                    return
                }
                #expect(item.contains(key.description))
            }
            let info = try #require(try await store.items(in: .group(group)).first)
            #expect(info.size == size && info.isOversized)

            let table = try await Subprocess.run(program, ["list"])
            #expect(table.status == 0, "\(table.standardError)")
            let row = try #require(table.output.split(separator: "\n").first { $0.contains(group.rawValue) })
            #expect(row.contains("OVERSIZED: \(size) bytes, not read"))
            let json = try #require(try JSONSerialization.jsonObject(with: try await Subprocess.run(program, ["list", "--json"]).standardOutput) as? [[String: Any]])
            let entry = try #require(json.first { $0["accessGroup"] as? String == group.rawValue })
            #expect(entry["oversized"] as? Int == size && entry["corrupt"] as? Bool == true)

            let show = try await Subprocess.run(program, ["show", "--group", group.rawValue, "--api-key", apiKey, "--app-id", "1:42:linux:x"])
            #expect(show.status == 1 && show.standardError.contains("over the limit of \(KeychainLimits.maximumSecretSize) bytes"), "\(show.standardError)")
            try await clearPlanted()
        }

        @Test func aListingReadsOneSecretPerCall() async throws {
            let group = uniqueGroup()
            let store = SecretServiceStore()
            for index in 0..<3 {
                try await store.setData(.text("{\"n\": \(index)}"), for: uniqueKey(in: group), label: "batch \(index)")
            }
            let monitor = try await BusMonitor(matching: "type='method_call',member='GetSecrets'", harness: harness)
            let items = try await store.items(in: .group(group))
            let traffic = try await monitor.stop()
            #expect(items.count == 3)
            // Each GetSecrets call lists its item paths one per line; a batch would list several.
            let calls = traffic.components(separatedBy: "member=GetSecrets").dropFirst()
            #expect(calls.count == 3, "\(traffic)")
            for call in calls {
                #expect(call.components(separatedBy: "object path \"\(harness.defaultCollection)/").count - 1 == 1, "\(call)")
            }
            #expect(try await store.removeAll(in: group) == 3)
        }
    }
}
