import Foundation
import KeyringTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension KeyringTests {
    /// `keyring-auth emulator --app-check ENFORCE` as a CI job runs it: its debug tokens from `APP_CHECK_DEBUG_TOKEN` and
    /// `--app-check-debug-tokens-file`, never on its command line or in its output, each exchanged for a token that Auth's
    /// calls then need.
    @Suite struct EmulatorAppCheckCommand {
        static let fromEnvironment = "0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0"
        static let fromFile = "9A8B7C6D-5E4F-4A3B-8C2D-1E0F9A8B7C6D"
        let program: String

        init() throws {
            program = try Harness.product("keyring-auth")
        }

        /// A POST to the emulator on `port`: the status and the JSON object answered.
        static func post(_ port: Int, _ path: String, _ body: String, headers: [String: String] = [:]) throws -> (Int, [String: Any]) {
            let lines = ["POST \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Type: application/json",
                "Content-Length: \(body.utf8.count)", "Connection: close"] + headers.map { "\($0.key): \($0.value)" }
            let answer = String(decoding: try RawTCP.exchange(
                host: "127.0.0.1", port: port, bytes: Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)), as: UTF8.self)
            let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
            let json = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            return (status, (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:])
        }

        @Test func debugTokensComeFromTheEnvironmentAndAFileAndAreEnforced() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-app-check-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("debug-tokens").path
            try Data("# CI\n\(Self.fromFile)\n".utf8).write(to: URL(fileURLWithPath: file))
            var environment = ProcessInfo.processInfo.environment
            environment["APP_CHECK_DEBUG_TOKEN"] = Self.fromEnvironment
            let server = try LineChannel(
                [program, "emulator", "--port", "0", "--app-check", "enforce", "--app-check-debug-tokens-file", file], environment: environment)
            var printed = [try await server.nextLine(), try await server.nextLine(), try await server.nextLine()]
            #expect(printed[0].hasPrefix("Auth emulator for project demo-keyring-auth listening on"))
            let exported = printed[1]
            #expect(exported.hasPrefix("export FIREBASE_AUTH_EMULATOR_HOST="))
            #expect(printed[2] == "App Check enforced on Auth; 2 debug tokens registered")
            let port = try #require(Int(exported.split(separator: ":").last ?? ""))
            let commandLine = try String(contentsOfFile: "/proc/\(server.child.pid)/cmdline", encoding: .utf8)
            #expect(!commandLine.contains(Self.fromEnvironment) && !commandLine.contains(Self.fromFile))

            let exchange = "/firebaseappcheck.googleapis.com/v1/projects/demo-keyring-auth/apps/1:1234567890:linux:abcdef:exchangeDebugToken?key=k"
            var tokens: [String] = []
            for secret in [Self.fromEnvironment, Self.fromFile] {
                let (status, reply) = try Self.post(port, exchange, #"{"debugToken": "\#(secret)"}"#)
                #expect(status == 200 && reply["ttl"] as? String == "3600s", "\(reply)")
                tokens.append(try #require(reply["token"] as? String))
            }
            #expect(try Self.post(port, exchange, #"{"debugToken": "not-registered"}"#).0 == 403)
            let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
            let (refused, error) = try Self.post(port, signUp, "{}")
            #expect(refused == 401 && (error["error"] as? [String: Any])?["message"] as? String == "Firebase App Check token is invalid.")
            for token in tokens {
                #expect(try Self.post(port, signUp, "{}", headers: ["X-Firebase-AppCheck": token]).0 == 200)
            }
            server.child.send(SIGINT)
            printed.append(try await server.nextLine())
            #expect(printed.last == "Auth emulator stopped.")
            #expect(await server.finish() == 0)
            let output = printed.joined(separator: "\n") + server.standardError
            #expect(!output.contains(Self.fromEnvironment) && !output.contains(Self.fromFile), "no secret printed")
        }

        @Test func aTokensFileThatCannotBeReadIsBadInput() async throws {
            let result = try await Subprocess.run(program, ["emulator", "--port", "0", "--app-check-debug-tokens-file", "/nonexistent/tokens"])
            #expect(result.status == 2 && result.standardError.contains("Cannot read the App Check debug tokens file"), "\(result.standardError)")
            let wrong = try await Subprocess.run(program, ["emulator", "--port", "0", "--app-check", "sometimes"])
            #expect(wrong.status == 2 && wrong.standardError.contains("--app-check takes ENFORCE or UNENFORCED"), "\(wrong.standardError)")
        }
    }
}
