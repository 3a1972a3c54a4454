import Foundation
import KeyringTestSupport
import Testing

/// firebase-tools' own tests of its Auth emulator (`src/emulator/auth/*.spec.ts`), each case written anew in
/// `Tests/EmulatorSpecs/spec_*.py` under the spec's `it(...)` title and replayed by `run.py` against
/// `keyring-auth-emulator`, one emulator per case: one test per spec file. Every case must pass, be a difference
/// on purpose (`differs=`, asserting what ours does), be outside what we claim (`skip`), or be listed in
/// `Tests/EmulatorSpecs/not-yet.txt`, the cases still to be made to pass; a listed case that no longer fails fails
/// the test, so the list only shrinks.
@Suite struct FirebaseToolsSpecTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EmulatorSpecs")

    /// The spec modules, `spec_NAME.py` → `NAME`.
    static let modules: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasPrefix("spec_") && $0.hasSuffix(".py") }
        .map { String($0.dropFirst("spec_".count).dropLast(".py".count)) }
        .sorted()

    /// `SPEC-FILE :: TITLE` of each case listed in `not-yet.txt`.
    static func notYet() throws -> Set<String> {
        let text = try String(contentsOf: directory.appendingPathComponent("not-yet.txt"), encoding: .utf8)
        return Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    @Test func everySpecFileIsReplayed() {
        #expect(Self.modules.count >= 1)
    }

    @Test(arguments: modules) func everyCaseHoldsAgainstOurEmulator(_ module: String) async throws {
        let result = try await Subprocess.run(
            "/usr/bin/python3",
            [Self.directory.appendingPathComponent("run.py").path, try Harness.product("keyring-auth-emulator"), module],
            limit: .seconds(600))
        let lines = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty, "run.py printed no case: \(result.standardError)")
        let notYet = try Self.notYet()
        var outcomes: [String: Substring] = [:]
        for line in lines {
            let parts = line.components(separatedBy: " :: ")
            guard parts.count >= 2, let space = parts[0].firstIndex(of: " ") else {
                Issue.record("an unexpected line from run.py: \(line)")
                continue
            }
            let outcome = parts[0][..<space]
            let key = parts[0][parts[0].index(after: space)...] + " :: " + parts[1]
            outcomes[key] = outcome
            if outcome == "fail" && !notYet.contains(key) { Issue.record("\(line)") }
        }
        for key in notYet where outcomes[key].map({ $0 != "fail" }) ?? false {
            Issue.record("\(outcomes[key]!) now: remove it from Tests/EmulatorSpecs/not-yet.txt: \(key)")
        }
    }
}
