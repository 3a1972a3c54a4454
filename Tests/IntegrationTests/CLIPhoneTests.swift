import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Subprocesses
import Testing

extension KeyringTests {
    /// Phone numbers from the terminal against the emulator (which verifies no app): two apps of one group, app A signs
    /// in by phone with the code typed after the SMS came, app B sees that user; an SMS second factor enrolled with
    /// `mfa enroll-phone` is then asked for at a password sign-in, and a wrong code changes nothing stored.
    @Suite struct CLIPhone {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        /// Runs `keyring-auth arguments` as a person at a terminal would (piped): `before` lines first, then, once the
        /// emulator sent an SMS to `phone`, its code (or `code(sent)`).
        private func runWithSMS(
            _ arguments: [String], to phone: String, emulator address: String, before: [String] = [], code: (String) -> String = { $0 }
        ) async throws -> (status: Int32, output: String, standardError: String) {
            let already = try await EmulatorSMS.count(to: phone, emulator: address)
            let program = try LineChannel([cli.program] + arguments)
            before.forEach { program.send($0) }
            let sent: String
            do {
                sent = try await EmulatorSMS.next(to: phone, emulator: address, after: already)
            } catch {
                _ = await program.finish(within: .seconds(10))
                throw CLIFailureWhileWaiting(error: "\(error)", standardError: program.standardError)
            }
            program.send(code(sent))
            let status = await program.finish(within: .seconds(60))
            var lines: [String] = []
            while let line = try? await program.nextLine(within: .seconds(5)) { lines.append(line) }
            return (status, lines.joined(separator: "\n"), program.standardError)
        }

        struct CLIFailureWhileWaiting: Error {
            let error: String
            let standardError: String
        }

        @Test func oneAppSignsInByPhoneAndTheOtherAppOfTheGroupSeesTheUser() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, b) = cli.twoApps(keyPrefix: "phone")
            let group = uniqueGroup().rawValue
            let phone = "+1555555\(Int.random(in: 1000...9999))"
            let signedIn = try await runWithSMS(
                ["sign-in", "--phone", phone, "--group", group, "--emulator", address, "--json"] + a, to: phone, emulator: address)
            try #require(signedIn.status == 0, "\(signedIn.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(signedIn.output.utf8)) as? [String: Any])
            #expect(json["providers"] as? [String] == ["phone"] && json["isNewUser"] as? Bool == true)
            let shown = try await cli.run(["show", "--json", "--group", group] + b)
            #expect(shown.status == 0, "\(shown.standardError)")
            let seen = try #require(try JSONSerialization.jsonObject(with: shown.standardOutput) as? [String: Any])
            #expect(seen["uid"] as? String == json["uid"] as? String && seen["phoneNumber"] as? String == phone, "\(seen)")

            // A malformed number: refused before anything is sent, exit 2 or 5 with Firebase's code named.
            let malformed = try await cli.run(["sign-in", "--phone", "555-0100", "--group", group, "--emulator", address] + a)
            #expect(malformed.status != 0 && malformed.standardError.contains("invalidPhoneNumber"), "\(malformed)")
        }

        @Test func anSMSFactorEnrolledFromTheCLIIsAskedForAtSignIn() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (a, _) = cli.twoApps(keyPrefix: "smsmfa")
            let group = uniqueGroup().rawValue
            let email = "sms-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try emulator.importAccounts(Data(#"""
                {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "sms-user", "email": "\#(email)", "emailVerified": true, "rawPassword": "second-factor"}]}
                """#.utf8))
            let signIn = ["sign-in", "--email", email, "--password-stdin", "--group", group, "--emulator", address]
            let first = try await cli.run(signIn + a, input: "second-factor\n")
            try #require(first.status == 0, "\(first.standardError)")
            let phone = "+1555556\(Int.random(in: 1000...9999))"
            let enrolled = try await runWithSMS(
                ["mfa", "enroll-phone", "--phone", phone, "--display-name", "work phone", "--group", group, "--emulator", address] + a,
                to: phone, emulator: address)
            try #require(enrolled.status == 0, "\(enrolled.standardError)")
            #expect(enrolled.output.contains("work phone") && enrolled.output.contains("phone"), "\(enrolled.output)")
            let out = try await cli.run(["sign-out", "--group", group] + a)
            try #require(out.status == 0, "\(out.standardError)")

            // A wrong SMS code: exit 5, invalidVerificationCode, nobody stored.
            let wrong = try await runWithSMS(signIn + a, to: phone, emulator: address, before: ["second-factor"]) { $0 == "000000" ? "111111" : "000000" }
            #expect(wrong.status == 5 && wrong.standardError.contains("invalidVerificationCode"), "\(wrong)")
            #expect(try await cli.run(["show", "--json", "--group", group] + a).status == 3)
            // The right one signs in.
            let right = try await runWithSMS(signIn + a + ["--json"], to: phone, emulator: address, before: ["second-factor"])
            #expect(right.status == 0, "\(right.standardError)")
            let listed = try await cli.run(["mfa", "list", "--json", "--group", group] + a)
            let factors = try #require((try JSONSerialization.jsonObject(with: listed.standardOutput) as? [String: Any])?["secondFactors"] as? [[String: Any]])
            #expect(factors.first?["factorID"] as? String == "phone" && factors.first?["phoneNumber"] as? String == phone, "\(factors)")
        }
    }
}
