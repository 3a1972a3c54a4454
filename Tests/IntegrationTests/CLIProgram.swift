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

    /// Runs `keyring-auth arguments` with `input` on standard input and waits for it to exit.
    func run(_ arguments: [String], input: String = "", environment: [String: String]? = nil) async throws -> Subprocess.Result {
        try await Subprocess.run(program, arguments, input: Data(input.utf8), environment: environment)
    }
}
