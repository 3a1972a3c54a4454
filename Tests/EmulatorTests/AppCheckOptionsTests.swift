import CommandLineSupport
import Foundation
import KeyringAuthEmulator
import Testing

/// `keyring-auth emulator --app-check` and its debug tokens, which come from `APP_CHECK_DEBUG_TOKEN` and a file, never
/// from the command line.
@Suite struct AppCheckOptionsTests {
    @Test func theOptionTakesAnEnforcement() throws {
        #expect(try EmulatorOptions.parse(["--app-check", "enforce"]).enforcesAppCheck)
        #expect(try EmulatorOptions.parse(["--app-check", "ENFORCE"]).enforcesAppCheck)
        #expect(try !EmulatorOptions.parse(["--app-check", "Unenforced"]).enforcesAppCheck)
        #expect(try EmulatorOptions.parse([]).appCheck == nil)
        #expect(throws: (any Error).self) { try EmulatorOptions.parse(["--app-check", "sometimes"]) }
        #expect(throws: (any Error).self) { try EmulatorOptions.parse(["--app-check-debug-token", "secret"]) }
        #expect(EmulatorOptions.usage.contains("[--app-check ENFORCE|UNENFORCED] [--app-check-debug-tokens-file <file>]"))
        #expect(EmulatorOptions.maximumDebugTokenBytes == AuthEmulator.AppCheckSettings.maximumDebugTokenBytes)
    }

    @Test func debugTokensComeFromTheEnvironmentAndTheFile() throws {
        let file = try Self.file("# the CI job's\n  one-token  \n\ntwo-token\r\nthree-token")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let options = try EmulatorOptions.parse(["--app-check-debug-tokens-file", file])
        #expect(try options.appCheckDebugTokens(environment: ["APP_CHECK_DEBUG_TOKEN": " env-token "])
            == ["env-token", "one-token", "two-token", "three-token"])
        #expect(try options.appCheckDebugTokens(environment: [:]) == ["one-token", "two-token", "three-token"])
        #expect(try EmulatorOptions.parse([]).appCheckDebugTokens(environment: ["APP_CHECK_DEBUG_TOKEN": "env-token"]) == ["env-token"])
        #expect(try EmulatorOptions.parse([]).appCheckDebugTokens(environment: ["APP_CHECK_DEBUG_TOKEN": ""]) == [])
    }

    @Test func aFileThatIsNotOneOfTokensIsRefusedWithoutShowingThem() throws {
        let secret = "a-secret-with\u{7}bell"
        let control = try Self.file("fine\n\(secret)\n")
        let long = try Self.file(String(repeating: "x", count: EmulatorOptions.maximumDebugTokenBytes + 1))
        let large = try Self.file(String(repeating: "token\n", count: EmulatorOptions.maximumDebugTokensFileBytes / 6 + 1))
        defer { for path in [control, long, large] { try? FileManager.default.removeItem(atPath: path) } }
        for (path, expected) in [(control, "line 2 of"), (long, "line 1 of"), (large, "over 64 KiB"), ("/nonexistent/tokens", "Cannot read"), ("/tmp", "not a regular file")] {
            let options = try EmulatorOptions.parse(["--app-check-debug-tokens-file", path])
            do {
                _ = try options.appCheckDebugTokens(environment: [:])
                Issue.record("\(path) was read")
            } catch {
                #expect(error.status == .invalidInput && error.message.contains(expected), "\(error.message)")
                #expect(!error.message.contains(secret))
            }
        }
        #expect(throws: CLIFailure.self) { try EmulatorOptions.parse([]).appCheckDebugTokens(environment: ["APP_CHECK_DEBUG_TOKEN": secret]) }
    }

    private static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("app-check-tokens-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
