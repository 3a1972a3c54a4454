import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Testing

extension KeyringTests {
    /// Second factors from the terminal, across two processes of two apps of one group: app A enrolls an
    /// authenticator through `keyring-auth mfa enroll-totp` (a wrong code first), app B lists it; the group signs
    /// out; B's password sign-in then needs the code, a wrong one changes nothing stored, the right one signs both
    /// apps in. The codes are computed from the secret the enrollment printed, as the authenticator app would.
    @Suite struct CLIMultiFactor {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        /// The `otpauth://` URI's base32 secret.
        private func secret(of uri: String) throws -> String {
            try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value, "\(uri)")
        }

        private func stored(_ arguments: [String]) async throws -> [String: Any]? {
            let shown = try await cli.run(["show", "--json"] + arguments)
            guard shown.status == 0 else { return nil }
            return try JSONSerialization.jsonObject(with: shown.standardOutput) as? [String: Any]
        }

        /// Runs `mfa enroll-totp` as a script does: the URI (and the QR code) is read from its output, then the code
        /// `answer` gives for the secret is written to its standard input. Returns the exit status, the output lines
        /// and what it wrote to standard error.
        private func enroll(
            _ arguments: [String], answer: (String) -> String
        ) async throws -> (status: Int32, lines: [String], standardError: String) {
            let program = try LineChannel([cli.program, "mfa", "enroll-totp"] + arguments)
            let uri = try await program.nextLine(within: .seconds(60))
            var lines = [uri]
            program.send(answer(try secret(of: uri)))
            let status = await program.finish(within: .seconds(60))
            // It has exited: what is left of its output is there to take.
            while let line = try? await program.nextLine(within: .seconds(5)) { lines.append(line) }
            return (status, lines, program.standardError)
        }

        /// The modules of a QR code drawn as `TerminalQRCode` draws it, as a PBM image (4 pixels a module) for zbarimg.
        private func portableBitmap(of drawing: [String]) -> Data {
            let rows = drawing.flatMap { line -> [[Bool]] in
                let top = line.map { $0 == " " || $0 == "▄" }, bottom = line.map { $0 == " " || $0 == "▀" }
                return [top, bottom]
            }
            let scale = 4, width = (rows.first?.count ?? 0) * scale
            var text = "P1\n\(width) \(rows.count * scale)\n"
            for row in rows {
                let pixels = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
                for _ in 0..<scale { text += pixels + "\n" }
            }
            return Data(text.utf8)
        }

        @Test func enrollInOneAppListInTheOtherAndSignInWithTheCode() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = cli.twoApps(keyPrefix: "mfa")
            let group = uniqueGroup().rawValue
            let email = "mfa-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try emulator.importAccounts(Data(#"""
                {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "mfa-user", "email": "\#(email)", "emailVerified": true, "rawPassword": "second-factor"}]}
                """#.utf8))
            let signIn = ["sign-in", "--email", email, "--password-stdin", "--group", group, "--emulator", address]
            let first = try await cli.run(signIn + a, input: "second-factor\n")
            try #require(first.status == 0, "\(first.standardError)")

            // A wrong code: exit 5, nothing enrolled, for A or for B.
            let enrollment = ["--display-name", "Phone", "--group", group, "--emulator", address] + a
            let wrong = try await enroll(enrollment) { _ in "000000" }
            #expect(wrong.status == 5 && wrong.standardError.contains("invalidVerificationCode"), "\(wrong)")
            #expect(wrong.lines.first?.hasPrefix("otpauth://totp/") == true)
            let none = try await cli.run(["mfa", "list", "--json", "--group", group] + b)
            #expect(none.status == 0, "\(none.standardError)")
            #expect(((try JSONSerialization.jsonObject(with: none.standardOutput) as? [String: Any])?["secondFactors"] as? [Any])?.isEmpty == true)

            // The right code, with the QR code drawn: zbarimg reads the URI back from it.
            var enrolledAt = Date()
            let right = try await enroll(enrollment + ["--qr-code"]) { secret in
                enrolledAt = Date()
                return TOTP.code(base32Secret: secret, at: enrolledAt) ?? "-"
            }
            #expect(right.status == 0, "\(right)")
            let uri = try #require(right.lines.first)
            let drawing = right.lines.dropFirst().filter { !$0.hasPrefix("Enrolled") }
            #expect(drawing.count > 10, "a QR code was drawn: \(right.lines)")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let image = directory.appendingPathComponent("code.pbm")
            try portableBitmap(of: Array(drawing)).write(to: image)
            let decoded = try await Subprocess.run("/usr/bin/zbarimg", ["--quiet", "--raw", image.path])
            #expect(decoded.status == 0 && decoded.output.trimmingCharacters(in: .newlines) == uri, "\(decoded.output)\(decoded.standardError)")
            let secret = try secret(of: uri)

            // App B, another process, lists the factor; show lists it too.
            let listed = try await cli.run(["mfa", "list", "--json", "--group", group] + b)
            let factors = try #require((try JSONSerialization.jsonObject(with: listed.standardOutput) as? [String: Any])?["secondFactors"] as? [[String: Any]])
            #expect(factors.count == 1 && factors.first?["displayName"] as? String == "Phone" && factors.first?["factorID"] as? String == "totp")
            let factorUID = try #require(factors.first?["uid"] as? String)
            #expect((try await stored(["--group", group] + b)?["secondFactors"] as? [[String: Any]])?.count == 1)

            // The group signs out; B's password alone no longer signs in.
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            let noCode = try await cli.run(signIn + b, input: "second-factor\n")
            #expect(noCode.status == 2 && noCode.standardError.contains("authenticator app"), "\(noCode.standardError)")
            let wrongCode = try await cli.run(signIn + b, input: "second-factor\n000000\n")
            #expect(wrongCode.status == 5 && wrongCode.standardError.contains("invalidVerificationCode"), "\(wrongCode.standardError)")
            #expect(try await stored(["--group", group] + a) == nil, "a wrong code stored nothing")

            // The right code, of a later time step than the enrollment's (a code is accepted once) and within the
            // emulator's window (the step before now, now, the step after).
            let code = try #require(TOTP.code(base32Secret: secret, at: max(enrolledAt.addingTimeInterval(30), Date().addingTimeInterval(-29))))
            let signedIn = try await cli.run(signIn + ["--factor", factorUID] + b, input: "second-factor\n\(code)\n")
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            #expect(try await stored(["--group", group] + a)?["uid"] as? String == "mfa-user", "both apps are signed in")
            let reused = try await cli.run(signIn + b, input: "second-factor\n\(code)\n")
            #expect(reused.status == 5, "a code that finished a sign-in does not finish another: \(reused.standardError)")

            #expect(try await cli.run(["mfa", "unenroll", factorUID, "--group", group, "--emulator", address] + a).status == 0)
            #expect((try await stored(["--group", group] + b)?["secondFactors"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }
    }
}
