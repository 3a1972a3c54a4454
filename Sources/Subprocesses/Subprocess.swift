import Foundation
import SystemSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program as a user would and collects what it prints.
package enum Subprocess {
    package struct Result: Sendable {
        package var status: Int32
        package var standardOutput: Data
        package var standardError: String
        package var output: String { String(decoding: standardOutput, as: UTF8.self) }

        /// - Throws: when the program did not exit with status 0.
        package func requireSuccess(_ what: String) throws {
            guard status == 0 else {
                throw Failure(description: "\(what) exited with \(status): \(standardError)")
            }
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// Runs `program` (a path, or a name looked up in PATH) and waits for it to exit, at most
    /// `limit`: a program still running then is killed and the run fails, so a hang is an error.
    ///
    /// Output goes through files in a throwaway directory, read once the program has exited.
    ///
    /// - Parameter environment: Replaces the whole environment when given.
    package static func run(
        _ program: String, _ arguments: [String], input: Data = Data(),
        environment: [String: String]? = nil, limit: Duration = .seconds(60)
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stdin, stdout, stderr) = (
            directory.appendingPathComponent("in"), directory.appendingPathComponent("out"),
            directory.appendingPathComponent("err"))
        try input.write(to: stdin)
        try Data().write(to: stdout)
        try Data().write(to: stderr)

        let child = try ChildProcess([program] + arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        let killed = Flag()
        let killer = Task {
            try await Task.sleep(for: limit)
            if !child.hasExited {
                killed.value.store(true, ordering: .sequentiallyConsistent)
                child.send(SIGKILL)
            }
        }
        let status = await child.exitStatus()
        killer.cancel()
        let result = Result(
            status: status, standardOutput: try Data(contentsOf: stdout),
            standardError: String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
        if killed.value.load(ordering: .sequentiallyConsistent) && status == 128 + SIGKILL {
            throw Failure(description: "\(program) \(arguments) did not finish within \(limit) and was killed; stderr: \(result.standardError)")
        }
        return result
    }

    private final class Flag: Sendable {
        let value = Atomic(false)
    }
}
