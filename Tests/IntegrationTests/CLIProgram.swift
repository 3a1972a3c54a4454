import Foundation
import KeyringTestSupport

/// The built `keyring-auth`, run as a user runs it: in a subprocess on the harness's bus.
struct CLIProgram {
    let harness: Harness
    /// The binary's path, for tests that start it themselves (`LineChannel`, a shell).
    let program: String

    /// - Throws: when not under the harness, or the binary is not built next to the tests.
    init() throws {
        harness = try Harness.require()
        program = try Harness.product("keyring-auth")
    }

    /// The identity options of two apps of one project (one API key, `AIza-<keyPrefix>-…`, new for each call),
    /// told apart by app ID: `app-a` and `app-b`.
    func twoApps(keyPrefix: String) -> (a: [String], b: [String]) {
        let id = String(UUID().uuidString.prefix(8))
        let key = ["--api-key", "AIza-\(keyPrefix)-\(id)"]
        return (key + ["--app-id", "1:42:linux:a-\(id)", "--app-name", "app-a"], key + ["--app-id", "1:42:linux:b-\(id)", "--app-name", "app-b"])
    }

    /// Runs `keyring-auth arguments` with `input` on standard input and waits for it to exit, at most `limit`.
    func run(_ arguments: [String], input: String = "", environment: [String: String]? = nil, limit: Duration = .seconds(60)) async throws
        -> Subprocess.Result
    {
        try await Subprocess.run(program, arguments, input: Data(input.utf8), environment: environment, limit: limit)
    }
}
