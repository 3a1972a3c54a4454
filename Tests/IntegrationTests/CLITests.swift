import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// `keyring-auth` run as a user runs it: the built binary in a subprocess on the harness's bus,
    /// its output and exit code checked.
    @Suite struct CLI {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func json(_ result: Subprocess.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result.output)")
        }

        /// An app identity no other test uses, and `sign-in`'s arguments for the emulator: only `sign-in`
        /// reaches the backend, so only it takes `--emulator`.
        private func app(_ emulator: AuthEmulator.Address, name: String = "cli-app") -> (identity: [String], apiKey: String, signIn: [String]) {
            let id = String(UUID().uuidString.prefix(8))
            let apiKey = "AIza-cli-\(id)"
            return (["--api-key", apiKey, "--app-id", "1:42:linux:\(name)-\(id)", "--app-name", name], apiKey, ["sign-in", "--emulator", "\(emulator)"])
        }

        @Test func theDemoPlaysTheWalkthrough() async throws {
            let result = try await cli.run(["demo"])
            #expect(result.status == 0, "\(result.standardError)")
            for step in [
                "1. Both apps share", "2. Sign in once", "3. Sign out once", "4. Back to an unshared keychain", "5. Migration",
                "6. Live sync", "still running, sees signed-out", "still running, sees signed-in",
            ] {
                #expect(result.output.contains(step))
            }
            #expect(!result.output.contains("NOT AS"))
            #expect(result.output.contains("Every step behaved as documented"))
        }

        @Test func aGroupSignInIsShownListedAndSignedOut() async throws {
            let emulator = try await startQuietEmulator()
            let address = try #require(emulator.address)
            let (identity, apiKey, signIn) = app(address)
            let group = uniqueGroup().rawValue

            let signedUp = try await cli.run(signIn + ["--email", "cli@example.com", "--password-stdin", "--create", "--group", group, "--json"] + identity, input: "open sesame\n")
            #expect(signedUp.status == 0, "\(signedUp.standardError)")
            let uid = try #require(try json(signedUp)["uid"] as? String)
            #expect(try json(signedUp)["accessGroup"] as? String == group)
            #expect(emulator.accounts.first?.email == "cli@example.com", "the password came from standard input")

            let show = try await cli.run(["show", "--group", group] + identity)
            #expect(show.status == 0)
            #expect(show.output.contains("uid: \(uid)") && show.output.contains("email: cli@example.com"))
            #expect(!show.output.contains("token:") || show.output.contains("token expires"), "no token without --show-tokens")
            let plainJSON = try json(try await cli.run(["show", "--group", group, "--json"] + identity))
            #expect(plainJSON["uid"] as? String == uid && plainJSON["idToken"] == nil && plainJSON["refreshToken"] == nil)
            let withTokens = try json(try await cli.run(["show", "--group", group, "--json", "--show-tokens"] + identity))
            #expect((withTokens["idToken"] as? String)?.split(separator: ".").count == 2, "an unsigned JWT")
            #expect(withTokens["refreshToken"] is String)

            let list = try await cli.run(["list", "--json"])
            let entries = try #require(try JSONSerialization.jsonObject(with: list.standardOutput) as? [[String: Any]])
            let entry = try #require(entries.first { $0["uid"] as? String == uid })
            #expect(entry["scope"] as? String == "group" && entry["accessGroup"] as? String == group)
            #expect(entry["apiKey"] as? String != apiKey && (entry["apiKey"] as? String)?.hasSuffix(String(apiKey.suffix(4))) == true, "shortened")
            let table = try await cli.run(["list"])
            #expect(table.output.hasPrefix("SCOPE") && table.output.contains(uid))
            #expect(!list.output.contains("eyJ") && !table.output.contains("eyJ"), "no token in listings")

            let signOut = try await cli.run(["sign-out", "--group", group] + identity)
            #expect(signOut.status == 0 && signOut.output.contains("every app of the group is signed out"))
            #expect(try await cli.run(["show", "--group", group] + identity).status == 3)
            let again = try await cli.run(["sign-out", "--group", group] + identity)
            #expect(again.status == 3 && again.standardError.contains("Nothing stored"))
            await emulator.stop()
        }

        @Test func useGroupEntersAndLeavesAGroupWithAndWithoutMigrating() async throws {
            let emulator = try await startQuietEmulator()
            let (identity, _, signIn) = app(try #require(emulator.address))
            let group = uniqueGroup().rawValue
            let signedIn = try json(try await cli.run(signIn + ["--anonymous", "--json"] + identity))
            let uid = try #require(signedIn["uid"] as? String)
            #expect(signedIn["accessGroup"] is NSNull)

            let migrated = try json(try await cli.run(["use-group", group, "--migrate", "--json"] + identity))
            #expect(migrated["uid"] as? String == uid && migrated["accessGroup"] as? String == group)
            let current = try json(try await cli.run(["show", "--json"] + identity))
            #expect(current["uid"] as? String == uid && current["accessGroup"] as? String == group, "show follows the saved choice")
            #expect(try await cli.run(["show", "--private"] + identity).status == 3, "entering the group emptied the private item")

            let back = try json(try await cli.run(["use-group", "--none", "--json"] + identity))
            #expect(back["uid"] is NSNull && back["accessGroup"] is NSNull)
            #expect(try await cli.run(["sign-out", "--group", group] + identity).status == 0)
            await emulator.stop()
        }

        @Test func doctorReportsAHealthyKeyringAndAMissingBus() async throws {
            let healthy = try await cli.run(["doctor"])
            #expect(healthy.status == 0, "\(healthy.output)\(healthy.standardError)")
            #expect(healthy.output.contains("provider: \(cli.harness.provider.doctorName)"))
            #expect(healthy.output.contains("\(cli.harness.defaultCollection), unlocked"))
            let report = try json(try await cli.run(["doctor", "--json"]))
            #expect(report["healthy"] as? Bool == true)

            var noBus = ProcessInfo.processInfo.environment
            noBus["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(cli.harness.root.path)/no-such-bus"
            let broken = try await cli.run(["doctor"], environment: noBus)
            #expect(broken.status == 4)
            #expect(broken.output.contains("FAIL session bus") && broken.output.contains("fix: "))
            let list = try await cli.run(["list"], environment: noBus)
            #expect(list.status == 4 && list.standardError.contains("session bus"))
        }

        @Test func doctorNamesTheProviderItsQuirksAndTheSandbox() async throws {
            let report = try json(try await cli.run(["doctor", "--json"]))
            let provider = try #require(report["provider"] as? [String: Any])
            let running = cli.harness.provider
            #expect(provider["name"] as? String == running.doctorName)
            #expect((provider["executable"] as? String)?.hasSuffix("/" + running.executable) == true, "\(provider)")
            if let status = try? String(contentsOfFile: "/var/lib/dpkg/status", encoding: .utf8), status.contains("\nPackage: \(running.package)\n") {
                #expect(provider["package"] as? String == running.package && (provider["version"] as? String)?.isEmpty == false, "\(provider)")
            }
            // The quirks named are the running provider's: each has a test of its own elsewhere.
            let quirks = try #require(report["quirks"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            let expected: Set<String> = switch running {
            case .gnomeKeyring: ["gnome-keyring-locked-prompt"]
            case .keepassxc: ["keepassxc-no-default-alias-object", "keepassxc-per-database-lock"]
            case .kwallet: ["kwallet-session-bug", "kwallet-label-kept-on-replace", "kwallet-signals-per-path"]
            }
            #expect(expected.isSubset(of: quirks), "\(quirks)")
            #expect(quirks.allSatisfy { $0.hasPrefix(running.rawValue + "-") }, "no other provider's quirk: \(quirks)")
            let sandbox = try #require(report["sandbox"] as? [String: Any])
            #expect(sandbox["kind"] as? String == "none" && sandbox["backend"] as? String == "secret-service")
            let text = try await cli.run(["doctor"])
            #expect(text.output.contains("ok   sandbox: none; backend: the Secret Service on the session bus"))
            for quirk in quirks { #expect(text.output.contains("quirk \(quirk): "), "\(quirk)") }

            // A faked Flatpak: FLATPAK_ID and a stand-in for /.flatpak-info (test-only variable).
            let marker = cli.harness.root.appendingPathComponent("flatpak-info")
            try Data("[Application]\nname=org.example.App\n".utf8).write(to: marker)
            var flatpak = ProcessInfo.processInfo.environment
            flatpak["FLATPAK_ID"] = "org.example.App"
            flatpak["KEYRING_AUTH_TEST_FLATPAK_INFO"] = marker.path
            let open = try await cli.run(["doctor"], environment: flatpak)
            #expect(open.status == 0, "\(open.output)")
            #expect(open.output.contains("ok   sandbox: Flatpak (org.example.App); backend: the Secret Service on the session bus, reachable"))
            // The same sandbox with no Secret Service visible (as without --talk-name).
            flatpak["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(cli.harness.root.path)/no-such-bus"
            let closed = try await cli.run(["doctor"], environment: flatpak)
            // The portal keyring and the broker are checked instead, and the Secret Service's permission is never advised.
            #expect(closed.status == 4)
            #expect(closed.output.contains("ok   sandbox: Flatpak (org.example.App); the Secret Service is out of reach"), "\(closed.output)")
            #expect(closed.output.contains("FAIL broker: io.github.keyringauth.Broker1 does not answer"), "\(closed.output)")
            #expect(closed.output.contains("FAIL probe:") && !closed.output.contains("talk-name=org.freedesktop.secrets"), "\(closed.output)")
            let closedJSON = try json(try await cli.run(["doctor", "--json"], environment: flatpak))
            let closedSandbox = try #require(closedJSON["sandbox"] as? [String: Any])
            #expect(closedSandbox["kind"] as? String == "flatpak" && closedSandbox["name"] as? String == "org.example.App")
            #expect(closedSandbox["backend"] as? String == "none" && (closedSandbox["howToShare"] as? String)?.contains("--talk-name") == true)

            var snap = ProcessInfo.processInfo.environment
            snap["SNAP_NAME"] = "my-app"
            let snapped = try await cli.run(["doctor"], environment: snap)
            #expect(snapped.output.contains("ok   sandbox: Snap (my-app); backend: the Secret Service on the session bus, reachable"))
        }

        /// `doctor` never asks to unlock: exit 4 on every provider. Another command asks the
        /// provider's unlock prompt (for up to the store's 60 s): refused at once by gnome-keyring
        /// with no prompter (exit 4); completed by KWallet by itself (it succeeds, unlocking the
        /// wallet); a dialog no one answers headless with KeePassXC, which is not waited for here.
        @Test func aLockedKeyringIsExitFour() async throws {
            let harness = cli.harness
            try await harness.lockLoginCollection()
            let doctor = try await cli.run(["doctor"])
            let list: Subprocess.Result? = harness.provider.unlockPrompt == .neverAnswered ? nil : try await cli.run(["list"])
            let stillLocked = try await harness.defaultCollectionIsLocked()
            try harness.unlockLoginCollection()
            #expect(doctor.status == 4 && doctor.output.contains("is locked") && doctor.output.contains("fix: unlock"))
            switch harness.provider.unlockPrompt {
            case .refusedAtOnce:
                let list = try #require(list)
                #expect(list.status == 4, "\(list.standardError)")
                #expect(list.standardError.split(separator: "\n").count == 1, "one line")
                #expect(stillLocked)
            case .unlocksByItself:
                let list = try #require(list)
                #expect(list.status == 0, "\(list.standardError)")
                #expect(!stillLocked, "KWallet's prompt unlocked the wallet")
            case .neverAnswered:
                #expect(stillLocked)
            }
        }

        @Test func badInputIsExitTwoAndAnUnreachableBackendExitFive() async throws {
            let identity = ["--api-key", "AIza-bad-input", "--app-id", "1:42:linux:bad"]
            let invalidGroup = try await cli.run(["show", "--group", "has space"] + identity)
            #expect(invalidGroup.status == 2 && invalidGroup.standardError.contains("not a valid access group"))

            let config = cli.harness.root.appendingPathComponent("malformed-\(UUID().uuidString).json")
            try Data("{\"apiKey\": 5}".utf8).write(to: config)
            let malformed = try await cli.run(["show", "--private", "--config", config.path])
            #expect(malformed.status == 2 && malformed.standardError.contains(config.path))

            #expect(try await cli.run(["sign-in"] + identity).status == 2, "neither --anonymous nor --email")
            #expect(try await cli.run(["sign-in", "--anonymous", "--emulator", "nonsense"] + identity).status == 2)
            #expect(try await cli.run(["sign-out"] + identity).status == 2, "no scope")
            #expect(try await cli.run(["no-such-command"]).status == 2)
            let noPassword = try await cli.run(["sign-in", "--email", "x@example.com", "--password-stdin"] + identity, input: "")
            #expect(noPassword.status == 2)

            let unreachable = try await cli.run(["sign-in", "--anonymous", "--emulator", "127.0.0.1:9"] + identity)
            #expect(unreachable.status == 5 && unreachable.standardError.contains("Cannot reach"))
            #expect(unreachable.standardError.split(separator: "\n").count == 1, "one line")
        }

        @Test func anInvalidCollectionPathOrTimeoutIsExitTwoInOneLine() async throws {
            for path in ["/a//b", "/a/", "/a b"] {
                let list = try await cli.run(["list", "--collection", path])
                #expect(list.status == 2, "\(path): \(list.standardError)")
                #expect(list.standardError.contains("not a valid D-Bus object path") || list.standardError.contains("is not one:"))
                #expect(!list.standardError.contains("CRITICAL"))
                #expect(list.standardError.split(separator: "\n").count == 1, "one line: \(list.standardError)")
            }
            for timeout in ["0.0001", "0", "3601", "nan"] {
                let list = try await cli.run(["list", "--timeout", timeout])
                #expect(list.status == 2, "\(timeout): \(list.standardError)")
                #expect(list.standardError.contains("from 0.001 (1 ms) to 3600"), "\(timeout): \(list.standardError)")
            }
            let shortest = try await cli.run(["list", "--timeout", "0.001"])
            #expect(shortest.status != 2, "1 ms is accepted (the keyring may not answer that fast): \(shortest.standardError)")
        }

        @Test func userInputTheBackendRefusesIsExitTwo() async throws {
            let emulator = try await startQuietEmulator()
            let (identity, _, signIn) = app(try #require(emulator.address))
            let weak = try await cli.run(signIn + ["--email", "weak@example.com", "--password-stdin", "--create"] + identity, input: "123")
            #expect(weak.status == 2 && weak.standardError.contains("at least 6 characters"))
            let badEmail = try await cli.run(signIn + ["--email", "not-an-email", "--password-stdin", "--create"] + identity, input: "secret1")
            #expect(badEmail.status == 2)
            let wrong = try await cli.run(signIn + ["--email", "nobody@example.com", "--password-stdin"] + identity, input: "secret1")
            #expect(wrong.status == 5, "a refused sign-in is the backend's answer")
            await emulator.stop()
        }

        @Test func aMalformedEmulatorVariableOnlyStopsSignIn() async throws {
            var environment = ProcessInfo.processInfo.environment
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = "localhost"
            let identity = ["--api-key", "AIza-env-\(UUID().uuidString.prefix(8))", "--app-id", "1:42:linux:env"]
            #expect(try await cli.run(["show", "--private"] + identity, environment: environment).status == 3)
            #expect(try await cli.run(["sign-out", "--private"] + identity, environment: environment).status == 3)
            let signIn = try await cli.run(["sign-in", "--anonymous"] + identity, environment: environment)
            #expect(signIn.status == 2 && signIn.standardError.contains("FIREBASE_AUTH_EMULATOR_HOST"))
        }

        @Test func aCorruptRecordIsListedAsCorrupt() async throws {
            let id = String(UUID().uuidString.prefix(8))
            let key = KeychainKey(service: "firebase_auth_1:42:linux:corrupt-\(id)", account: "firebase_auth_1_corrupt_firebase_user")
            let store = SecretServiceStore()
            try await store.setData(Data("not a user".utf8), for: key, label: "corrupt test record")
            let list = try await cli.run(["list", "--json"])
            #expect(list.status == 0)
            let entries = try #require(try JSONSerialization.jsonObject(with: list.standardOutput) as? [[String: Any]])
            let entry = try #require(entries.first { $0["service"] as? String == key.service })
            #expect(entry["corrupt"] as? Bool == true && (entry["error"] as? String)?.contains("cannot be read") == true)
            #expect(try await cli.run(["list"]).output.contains("CORRUPT: corruptStoredUser"))
            let show = try await cli.run(["show", "--private", "--api-key", "k", "--app-id", "1:42:linux:corrupt-\(id)", "--app-name", "corrupt"])
            #expect(show.status == 1 && show.standardError.contains("cannot be read"))
            #expect(try await store.data(for: key) == Data("not a user".utf8), "left as it is")

            // Its advice: sign in again to replace it.
            let emulator = try await startQuietEmulator()
            let signIn = try await cli.run([
                "sign-in", "--anonymous", "--json", "--api-key", "k", "--app-id", "1:42:linux:corrupt-\(id)", "--app-name", "corrupt",
                "--emulator", "\(try #require(emulator.address))",
            ])
            #expect(signIn.status == 0, "\(signIn.standardError)")
            #expect(try json(signIn)["uid"] is String)
            #expect(try await store.data(for: key) != Data("not a user".utf8))
            _ = try await store.removeData(for: key)
            await emulator.stop()
        }

        @Test func theEmulatorCommandServesUntilInterrupted() async throws {
            // Standard output is read as it is printed: the test reads the address the moment the server prints it.
            let server = try LineChannel([cli.program, "emulator", "--port", "0"])
            let prefix = "export FIREBASE_AUTH_EMULATOR_HOST="
            let host = String(try await server.nextLine { $0.hasPrefix(prefix) }.dropFirst(prefix.count))
            var environment = ProcessInfo.processInfo.environment
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = host
            let signIn = try await cli.run(
                ["sign-in", "--anonymous", "--api-key", "AIza-emu-cmd", "--app-id", "1:42:linux:emu-\(UUID().uuidString.prefix(8))", "--store", "memory"],
                environment: environment)
            #expect(signIn.status == 0, "the variable points the CLI at the emulator: \(signIn.standardError)")
            server.child.send(SIGINT)
            #expect(try await server.nextLine() == "Auth emulator stopped.")
            #expect(await server.finish() == 0)
        }
    }
}
