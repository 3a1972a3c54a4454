import Foundation
import KeyringTestSupport
import Subprocesses
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension KeyringTests {
    /// The email actions from the CLI against `keyring-auth emulator`, as a person follows them: each code's link
    /// read from the emulator's output, pasted on standard input; two apps of one group, each command a process of
    /// its own, so what one app applies reaches the other through the stored item.
    @Suite struct CLIEmailActions {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private static let exportPrefix = "export FIREBASE_AUTH_EMULATOR_HOST="

        private func json(_ result: Subprocess.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result.output)\(result.standardError)")
        }

        /// The link of the next code the emulator prints for `requestType` and `email`; the line holds no token.
        private func link(_ server: LineChannel, _ requestType: String, for email: String) async throws -> String {
            let prefix = "\(requestType) code for \(email): "
            let line = try await server.nextLine { $0.hasPrefix(prefix) }
            #expect(!line.contains("eyJ"), "no ID token (a JWT) on the emulator's output")
            return String(line.dropFirst(prefix.count))
        }

        @Test func aPersonResetsAPasswordVerifiesAnEmailAndSignsInWithALink() async throws {
            let server = try LineChannel([cli.program, "emulator", "--port", "0"])
            let address = String(try await server.nextLine { $0.hasPrefix(Self.exportPrefix) }.dropFirst(Self.exportPrefix.count))
            let id = String(UUID().uuidString.prefix(8))
            let key = ["--api-key", "AIza-email-\(id)", "--emulator", address]
            let a = key + ["--app-id", "1:42:linux:a-\(id)", "--app-name", "app-a"]
            let b = key + ["--app-id", "1:42:linux:b-\(id)", "--app-name", "app-b"]
            let showA = ["--api-key", "AIza-email-\(id)", "--app-id", "1:42:linux:a-\(id)", "--app-name", "app-a"]
            let group = uniqueGroup().rawValue

            let created = try await cli.run(
                ["sign-in", "--email", "ada@example.com", "--password-stdin", "--create", "--group", group] + a, input: "first-password")
            #expect(created.status == 0, "\(created.standardError)")
            let joined = try await cli.run(["use-group", group, "--api-key", "AIza-email-\(id)", "--app-id", "1:42:linux:b-\(id)", "--app-name", "app-b"])
            #expect(joined.status == 0, "\(joined.standardError)")

            // Verify the address: app A asks, app B applies, app A sees it verified.
            let sent = try await cli.run(["send-oob", "--verify-email"] + a)
            #expect(sent.status == 0 && sent.output.contains("verify-email"), "\(sent.standardError)")
            let verify = try await link(server, "VERIFY_EMAIL", for: "ada@example.com")
            let checked = try await cli.run(["check-code", "--code-stdin"] + b, input: verify + "\n")
            #expect(checked.output.contains("A verifyEmail code for ada@example.com."), "\(checked.standardError)")
            let applied = try json(try await cli.run(["apply-code", "--code-stdin", "--json"] + b, input: verify + "\n"))
            #expect(applied["applied"] as? String == "verifyEmail" && applied["emailVerified"] as? Bool == true)
            #expect(try json(try await cli.run(["show", "--group", group, "--json"] + showA))["emailVerified"] as? Bool == true)
            let again = try await cli.run(["apply-code", "--code-stdin"] + b, input: verify + "\n")
            #expect(again.status == 5 && again.standardError.contains("invalidActionCode"), "a used code")

            // Reset the password: the code and the new password on standard input; the session ends in every app.
            #expect(try await cli.run(["send-oob", "--password-reset", "--email", "ada@example.com"] + a).status == 0)
            let reset = try await link(server, "PASSWORD_RESET", for: "ada@example.com")
            let weak = try await cli.run(["reset-password", "--code-stdin", "--password-stdin"] + b, input: "\(reset)\nabc\n")
            #expect(weak.status == 2 && weak.standardError.contains("weakPassword"), "\(weak.standardError)")
            let done = try json(try await cli.run(["reset-password", "--code-stdin", "--password-stdin", "--json"] + b, input: "\(reset)\nsecond-password\n"))
            #expect(done["passwordReset"] as? String == "ada@example.com" && done["signedOut"] as? Bool == true)
            #expect(try await cli.run(["show", "--group", group] + showA).status == 3, "app A is signed out too")
            let old = try await cli.run(["sign-in", "--email", "ada@example.com", "--password-stdin", "--group", group] + a, input: "first-password")
            #expect(old.status == 5)
            let new = try await cli.run(["sign-in", "--email", "ada@example.com", "--password-stdin", "--group", group] + a, input: "second-password")
            #expect(new.status == 0, "\(new.standardError)")

            // Sign in with an email link, in app B; app A has the new user.
            let asked = try await cli.run(
                ["send-oob", "--sign-in-link", "--email", "grace@example.com", "--continue-url", "https://example.com/finish"] + a)
            #expect(asked.status == 0, "\(asked.standardError)")
            let signInLink = try await link(server, "EMAIL_SIGNIN", for: "grace@example.com")
            let linked = try json(try await cli.run(
                ["sign-in", "--email", "grace@example.com", "--link-stdin", "--group", group, "--json"] + b, input: signInLink + "\n"))
            #expect(linked["email"] as? String == "grace@example.com" && linked["isNewUser"] as? Bool == true)
            let shown = try json(try await cli.run(["show", "--group", group, "--json"] + showA))
            #expect(shown["email"] as? String == "grace@example.com" && shown["emailVerified"] as? Bool == true)
            let reused = try await cli.run(
                ["sign-in", "--email", "grace@example.com", "--link-stdin", "--group", group] + b, input: signInLink + "\n")
            #expect(reused.status == 5 && reused.standardError.contains("invalidActionCode"))
            let unchanged = try json(try await cli.run(["show", "--group", group, "--json"] + showA))
            #expect(unchanged["uid"] as? String == linked["uid"] as? String, "a failed sign-in changes nothing stored")

            // Codes and passwords come only from standard input.
            let noStdin = try await cli.run(["apply-code"] + b)
            #expect(noStdin.status == 2 && noStdin.standardError.contains("--code-stdin"))

            server.child.send(SIGINT)
            #expect(try await server.nextLine { $0 == "Auth emulator stopped." } == "Auth emulator stopped.")
            #expect(await server.finish() == 0)
        }
    }
}
