import Foundation
import KeyringTestSupport
import Subprocesses
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension KeyringTests {
    /// How the CLI takes secrets in: standard input read with a bound, and the process closed to other
    /// processes of its user (no core file, no ptrace, no /proc/PID/mem) while it holds them.
    @Suite struct CLISecretInput {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private static let app = ["--store", "memory", "--api-key", "k", "--app-id", "1:1:linux:secret-input"]

        @Test func moreThan64KiBOnStandardInputIsRefusedUnread() async throws {
            let huge = String(repeating: "x", count: 1 << 20)
            for (arguments, input) in [
                (["sign-in", "--custom-token-stdin"], huge + "\n"), (["sign-in", "--email", "a@example.com", "--password-stdin"], huge),
            ] {
                let result = try await cli.run(arguments + Self.app, input: input)
                #expect(result.status == 2, "\(arguments): \(result.standardError)")
                #expect(result.standardError.contains("more than 64 KiB"), "\(result.standardError)")
            }
        }

        /// `arguments` run without any capability (as root, through setpriv), as another process of the user is.
        private static func capless(_ arguments: [String]) -> [String] {
            getuid() == 0 ? ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] + arguments : arguments
        }

        /// Whether another process of this user, without capabilities, can read `/proc/<pid>/environ`, as it would
        /// read a secret from the process's memory.
        private func unprivilegedRead(_ pid: pid_t) async throws -> Bool {
            let reader = Self.capless(["cat", "/proc/\(pid)/environ"])
            return try await Subprocess.run(reader[0], Array(reader.dropFirst())).status == 0
        }

        /// Whether the unprivileged read of `pid` gives `expected` within 10 s (a process takes a moment to exec and
        /// reach the point where it changes).
        private func readability(of pid: pid_t, becomes expected: Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if try await unprivilegedRead(pid) == expected { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        @Test func theCLIIsNotDumpableWhileItWaitsForASecret() async throws {
            // The check can tell: a plain process of the user, without capabilities, is readable.
            let control = try LineChannel(Self.capless(["sleep", "30"]))
            defer { control.child.send(SIGKILL) }
            #expect(try await readability(of: control.child.pid, becomes: true), "a dumpable process is readable")

            // The CLI waiting for its password on standard input (kept open, empty) turns unreadable.
            let waiting = try LineChannel(Self.capless([cli.program, "sign-in", "--email", "a@example.com", "--password-stdin"] + Self.app))
            defer { waiting.child.send(SIGKILL) }
            #expect(try await readability(of: waiting.child.pid, becomes: false), "the CLI's memory stayed open to other processes")
            #expect(!waiting.child.hasExited, "it was still waiting for the secret")
        }
    }
}
