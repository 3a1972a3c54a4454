import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Subprocesses
import SystemSupport
import Testing

extension KeyringTests {
    /// `keyring-auth sign-in --google / --oidc`: the desktop OAuth flow run by the CLI as a user runs it. The
    /// system browser is a fake `xdg-open` first on `PATH` (auth-probe's `browse`, which follows the provider's
    /// redirect back to the CLI); the provider is ``FakeOAuthProvider``; the sign-in goes to the bundled emulator
    /// and the user is then seen by another process of another app of the group.
    @Suite struct CLIBrowserSignIn {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func fakeBrowser() throws -> (path: String, page: URL) { try FakeBrowser.make() }

        private func environment(path: String) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            return environment
        }

        @Test func aBrowserSignInWithAnOIDCIssuerIsSharedWithAnotherProcess() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let provider = try FakeOAuthProvider(user: ["sub": "google-grace", "email": "grace@example.com", "name": "Grace"])
            defer { provider.stop() }
            let (path, _) = try fakeBrowser()
            let id = String(UUID().uuidString.prefix(8))
            let key = ["--api-key", "AIza-browser-\(id)"]
            let (a, b) = (key + ["--app-id", "1:42:linux:a-\(id)"], key + ["--app-id", "1:42:linux:b-\(id)"])
            let group = uniqueGroup().rawValue

            let signedIn = try await cli.run(
                ["sign-in", "--oidc", provider.issuer, "--provider-id", "google.com", "--client-id", provider.clientID,
                 "--client-secret-stdin", "--group", group, "--json", "--emulator", address] + a,
                input: provider.clientSecret! + "\n", environment: environment(path: path))
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: signedIn.standardOutput) as? [String: Any])
            let uid = try #require(answer["uid"] as? String)
            #expect(answer["providers"] as? [String] == ["google.com"] && answer["email"] as? String == "grace@example.com")
            #expect(signedIn.standardError.contains("\(provider.issuer)/authorize?"), "the URL is printed for a person to open")
            #expect(!signedIn.standardError.contains(provider.clientSecret!) && !signedIn.output.contains(provider.clientSecret!))
            #expect(!signedIn.standardError.contains("code-") && !signedIn.standardError.contains("eyJ"), "no code or token printed")
            #expect(provider.tokenRequests == 1)

            // App B, another process, sees the user in the group.
            let shown = try await cli.run(["show", "--group", group] + b)
            #expect(shown.status == 0 && shown.output.contains("uid: \(uid)") && shown.output.contains("sign-in methods: google.com"))
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            await emulator.stop()
        }

        /// `sign-in --oidc` with a real browser: `xdg-open` first on `PATH` runs chromium (``RealBrowser``), which follows
        /// the provider's redirect back to the CLI and is left on its page saying the sign-in finished.
        @Test func aBrowserSignInInChromiumLeavesThePersonOnThePageSayingFinished() async throws {
            let emulator = try await startQuietEmulator()
            let provider = try FakeOAuthProvider(user: ["sub": "chromium-lin", "email": "lin@example.com"])
            defer { provider.stop() }
            let browser = try RealBrowser.make([])
            defer { browser.remove() }
            let id = String(UUID().uuidString.prefix(8))
            let signedIn = try await cli.run(
                ["sign-in", "--oidc", provider.issuer, "--provider-id", "oidc.fake", "--client-id", provider.clientID, "--client-secret-stdin",
                 "--browser-timeout", "150", "--store", "memory", "--json", "--emulator", "\(try #require(emulator.address))",
                 "--api-key", "AIza-chromium-\(id)", "--app-id", "1:42:linux:c-\(id)"],
                input: provider.clientSecret! + "\n", environment: environment(path: browser.path), limit: .seconds(240))
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: signedIn.standardOutput) as? [String: Any])
            #expect(answer["providers"] as? [String] == ["oidc.fake"] && answer["email"] as? String == "lin@example.com")
            let run = try await browser.nextRun()
            let page = try #require(run.final)
            #expect(page.url.hasPrefix("http://127.0.0.1:") && page.title == "Sign-in finished", "\(page)")
            #expect(page.text == "Sign-in finished\n\nYou can close this tab and return to the app.", "\(page.text)")
            #expect(provider.tokenRequests == 1)
            print("CLIBrowserSignIn: chromium took \(run.seconds) s")
            await emulator.stop()
        }

        /// `sign-in --provider microsoft.com`: the project's own provider, begun by Firebase (the emulator's
        /// `createAuthUri`), its page completed in the stand-in browser as Ada, the redirect back to `localhost`; the same
        /// person signing in again is the same user; options that belong to an app's own client are exit 2.
        @Test func theProjectsOwnMicrosoftProviderSignsInTheSameUserTwice() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (path, _) = try FakeBrowser.make(email: "ada@contoso.example")
            let id = String(UUID().uuidString.prefix(8))
            let app = ["--api-key", "AIza-provider-\(id)", "--app-id", "1:42:linux:a-\(id)"]
            let group = uniqueGroup().rawValue
            let signIn = ["sign-in", "--provider", "microsoft.com", "--custom-parameter", "tenant=organizations", "--scope", "Mail.Read",
                          "--group", group, "--json", "--emulator", address] + app
            let first = try await cli.run(signIn, environment: environment(path: path))
            #expect(first.status == 0, "\(first.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: first.standardOutput) as? [String: Any])
            #expect(answer["providers"] as? [String] == ["microsoft.com"] && answer["email"] as? String == "ada@contoso.example")
            #expect(answer["isNewUser"] as? Bool == true)
            #expect(first.standardError.contains("/emulator/auth/idp?") && first.standardError.contains("tenant=organizations"),
                    "the URL is printed for a person to open: \(first.standardError)")
            #expect(first.standardError.contains("redirect_uri=http%3A%2F%2Flocalhost%3A"), "\(first.standardError)")
            let again = try await cli.run(signIn, environment: environment(path: path))
            let second = try #require(try JSONSerialization.jsonObject(with: again.standardOutput) as? [String: Any])
            #expect(second["uid"] as? String == answer["uid"] as? String && second["isNewUser"] as? Bool == false)

            for wrong in [["--client-id", "x"], ["--client-secret-stdin"], ["--custom-parameter", "tenant"], ["--provider-id", "oidc.x"]] {
                let refused = try await cli.run(["sign-in", "--provider", "microsoft.com"] + wrong + app, input: "s\n")
                #expect(refused.status == 2, "\(wrong): \(refused.standardError)")
            }
            let notAProvider = try await cli.run(["sign-in", "--provider", "Microsoft"] + app)
            #expect(notAProvider.status == 2 && notAProvider.standardError.contains("--provider"), "\(notAProvider.standardError)")
            #expect(try await cli.run(["sign-out", "--group", group] + app).status == 0)
            await emulator.stop()
        }

        /// `link --provider microsoft.com`: the project's own provider linked to the signed-in (anonymous) user through the
        /// browser, as `sign-in --provider` signs in with it; the user becomes permanent for every app of the group, and a
        /// later `sign-in --provider` is that same user. Nobody signed in is exit 3 before any browser opens; a second
        /// way to link is exit 2.
        @Test func linkingTheProjectsOwnProviderInTheBrowserMakesTheUserPermanent() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let (path, page) = try FakeBrowser.make(email: "lin@contoso.example")
            let id = String(UUID().uuidString.prefix(8))
            let key = ["--api-key", "AIza-link-\(id)"]
            let (a, b) = (key + ["--app-id", "1:42:linux:a-\(id)"], key + ["--app-id", "1:42:linux:b-\(id)"])
            let group = uniqueGroup().rawValue
            let link = ["link", "--provider", "microsoft.com", "--custom-parameter", "tenant=organizations", "--group", group, "--json",
                        "--emulator", address]

            let nobody = try await cli.run(["link", "--provider", "microsoft.com", "--emulator", address] + a, environment: environment(path: path))
            #expect(nobody.status == 3, "\(nobody.standardError)")
            #expect(!nobody.standardError.contains("/emulator/auth/idp?") && !FileManager.default.fileExists(atPath: page.path),
                    "no browser was opened: \(nobody.standardError)")

            let anonymous = try await cli.run(["sign-in", "--anonymous", "--group", group, "--json", "--emulator", address] + a)
            let uid = try #require((try JSONSerialization.jsonObject(with: anonymous.standardOutput) as? [String: Any])?["uid"] as? String)
            let linked = try await cli.run(link + a, environment: environment(path: path))
            #expect(linked.status == 0, "\(linked.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: linked.standardOutput) as? [String: Any])
            #expect(answer["uid"] as? String == uid && answer["isAnonymous"] as? Bool == false)
            #expect(answer["providers"] as? [String] == ["microsoft.com"] && answer["email"] as? String == "lin@contoso.example")
            #expect(linked.standardError.contains("/emulator/auth/idp?") && linked.standardError.contains("tenant=organizations"),
                    "the URL is printed for a person to open: \(linked.standardError)")

            // Signed in again with the provider (reauthenticate), the same user; another account there is refused.
            let again = try await cli.run(
                ["reauthenticate", "--provider", "microsoft.com", "--group", group, "--json", "--emulator", address] + a, environment: environment(path: path))
            #expect(again.status == 0, "\(again.standardError)")
            #expect(try (JSONSerialization.jsonObject(with: again.standardOutput) as? [String: Any])?["uid"] as? String == uid, "\(again.standardError)")
            let (otherPath, _) = try FakeBrowser.make(email: "someone-else@contoso.example")
            let mismatch = try await cli.run(
                ["reauthenticate", "--provider", "microsoft.com", "--emulator", address] + a, environment: environment(path: otherPath))
            #expect(mismatch.status == 5 && mismatch.standardError.contains("userMismatch"), "\(mismatch.standardError)")

            // App B, another process, sees the permanent user; signing in with the provider again is that user.
            let shown = try await cli.run(["show", "--group", group] + b)
            #expect(shown.status == 0 && shown.output.contains("uid: \(uid)") && shown.output.contains("sign-in methods: microsoft.com"))
            #expect(try await cli.run(["sign-out", "--group", group] + a).status == 0)
            let signIn = try await cli.run(
                ["sign-in", "--provider", "microsoft.com", "--group", group, "--json", "--emulator", address] + b, environment: environment(path: path))
            #expect(try (JSONSerialization.jsonObject(with: signIn.standardOutput) as? [String: Any])?["uid"] as? String == uid, "\(signIn.standardError)")

            for twoWays in [["--provider", "microsoft.com", "--idp", "google.com", "--id-token-stdin"], ["--provider", "microsoft.com", "--google"], []] {
                let refused = try await cli.run(["link"] + twoWays + a, input: "t\n")
                #expect(refused.status == 2, "\(twoWays): \(refused.standardError)")
            }
            #expect(try await cli.run(["sign-out", "--group", group] + b).status == 0)
            await emulator.stop()
        }

        /// `sign-in --github`: GitHub's device flow at the terminal, against ``FakeGitHub``: the code and the address are
        /// printed, the wait goes through GitHub's `authorization_pending` and `slow_down`, and the token signs in on the
        /// emulator; a person who declines is exit 1 with nothing stored; a bad combination of options is exit 2.
        @Test func aGitHubSignInAtTheTerminal() async throws {
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let id = String(UUID().uuidString.prefix(8)).lowercased()  // the emulator keeps addresses in lower case
            let identity = ["--api-key", "AIza-github-\(id)", "--app-id", "1:42:linux:gh-\(id)"]
            let app = identity + ["--emulator", address]
            let github = try FakeGitHub(user: ["sub": "octocat-\(id)", "email": "octo-\(id)@example.com"], answers: [.pending, .slowDown(interval: 0), .token])
            defer { github.stop() }

            let signedIn = try await cli.run(
                ["sign-in", "--github", "--client-id", "Iv1.cli", "--github-host", github.base.absoluteString, "--scope", "read:user",
                 "--private", "--json"] + app)
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            #expect(signedIn.standardError.contains("enter the code ABCD-1234") && signedIn.standardError.contains("\(github.base.absoluteString)/login/device"),
                "\(signedIn.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: signedIn.standardOutput) as? [String: Any])
            #expect(answer["providers"] as? [String] == ["github.com"] && answer["email"] as? String == "octo-\(id)@example.com")
            #expect(github.codeRequests.first?["scope"] == "read:user" && github.tokenRequests.count == 3)
            #expect(!signedIn.standardError.contains("device-"), "the device code is not printed")

            let declining = try FakeGitHub(user: ["sub": "x"], answers: [.error("access_denied")])
            defer { declining.stop() }
            let declined = try await cli.run(
                ["sign-in", "--github", "--client-id", "Iv1.cli", "--github-host", declining.base.absoluteString, "--group", uniqueGroup().rawValue] + app)
            #expect(declined.status == 1 && declined.standardError.contains("declined"), "\(declined.standardError)")
            let shown = try await cli.run(["show", "--private"] + identity)
            #expect(shown.output.contains("octo-\(id)@example.com"), "the earlier sign-in stays: \(shown.output)\(shown.standardError)")

            // GitHub's web flow instead, with the OAuth app's secret: the browser (a stand-in xdg-open) follows GitHub's
            // redirect back to the CLI's loopback port.
            let web = try FakeOAuthProvider(user: ["sub": "octoweb-\(id)", "email": "octoweb-\(id)@example.com"], style: .gitHub)
            defer { web.stop() }
            let (path, _) = try fakeBrowser()
            let webSignIn = try await cli.run(
                ["sign-in", "--github", "--client-id", web.clientID, "--client-secret-stdin", "--github-host", web.base, "--private", "--json"] + app,
                input: web.clientSecret! + "\n", environment: environment(path: path))
            #expect(webSignIn.status == 0, "\(webSignIn.standardError)")
            #expect(webSignIn.output.contains("octoweb-\(id)@example.com") && web.tokenRequests == 1, "\(webSignIn.output)")

            let mixed = try await cli.run(["sign-in", "--github", "--google", "--client-id", "x", "--private"] + app)
            #expect(mixed.status == 2, "\(mixed.standardError)")
            let noClient = try await cli.run(["sign-in", "--github", "--private"] + app)
            #expect(noClient.status == 2 && noClient.standardError.contains("--client-id"), "\(noClient.standardError)")
            await emulator.stop()
        }

        /// Ctrl-C while `sign-in --github` waits for the person stops it at once (SIGINT's exit status), and nothing is stored.
        @Test func ctrlCWhileWaitingForGitHubStopsTheSignIn() async throws {
            let emulator = try await startQuietEmulator()
            let id = String(UUID().uuidString.prefix(8)).lowercased()
            let identity = ["--api-key", "AIza-ctrl-c-\(id)", "--app-id", "1:42:linux:ctrl-c-\(id)"]
            let github = try FakeGitHub(user: ["sub": "never"], answers: [.pending], interval: 1)
            defer { github.stop() }
            let waiting = try LineChannel([
                cli.program, "sign-in", "--github", "--client-id", "Iv1.cli", "--github-host", github.base.absoluteString, "--private",
                "--emulator", "\(try #require(emulator.address))",
            ] + identity)
            _ = try await github.polls.next(within: .seconds(60))  // it waits: GitHub has been asked once
            waiting.child.send(SIGINT)
            #expect(await waiting.finish() == 128 + SIGINT)
            let shown = try await cli.run(["show", "--private"] + identity)
            #expect(shown.status == 3, "nothing stored: \(shown.output)\(shown.standardError)")
            await emulator.stop()
        }

        @Test func whereTheSessionHasADesktopPortalTheURLGoesThroughItNotXdgOpensArguments() async throws {
            // xdg-open's arguments are readable by every user in /proc/PID/cmdline; the portal gets the URL over the bus.
            let bus = try await PrivateBus(harness: cli.harness)
            defer { bus.stop() }
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let provider = try FakeOAuthProvider(user: ["sub": "portal-ada", "email": "ada@example.com"])
            defer { provider.stop() }
            let (browserDirectory, _) = try fakeBrowser()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portal-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let (calls, xdgOpenUsed) = (directory.appendingPathComponent("calls"), directory.appendingPathComponent("xdg-open-used"))
            let refusingXdgOpen = directory.appendingPathComponent("xdg-open")
            try "#!/bin/sh\necho \"$@\" > '\(xdgOpenUsed.path)'\nexit 1\n".write(to: refusingXdgOpen, atomically: true, encoding: .utf8)
            chmod(refusingXdgOpen.path, 0o755)
            let portal = try ChildProcess(
                [cli.harness.scripts.appendingPathComponent("providers/fake-portal").path, calls.path, browserDirectory + "/xdg-open"],
                environment: bus.environment, stdin: URL(fileURLWithPath: "/dev/null"), stdout: URL(fileURLWithPath: "/dev/null"),
                stderr: URL(fileURLWithPath: "/dev/null"))
            defer { portal.send(SIGTERM) }
            let waited = try await Subprocess.run(
                "gdbus", ["wait", "--session", "--timeout", "10", "org.freedesktop.portal.Desktop"], environment: bus.environment)
            try waited.requireSuccess("gdbus wait for dbus/providers/fake-portal")

            var environment = bus.environment
            environment["PATH"] = directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            let id = String(UUID().uuidString.prefix(8))
            let result = try await cli.run(
                ["sign-in", "--oidc", provider.issuer, "--provider-id", "oidc.fake", "--client-id", provider.clientID, "--client-secret-stdin",
                 "--browser-timeout", "20", "--store", "memory", "--json", "--emulator", address, "--api-key", "AIza-portal-\(id)",
                 "--app-id", "1:42:linux:p-\(id)"],
                input: provider.clientSecret! + "\n", environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            let opened = try String(contentsOf: calls, encoding: .utf8)
            #expect(opened.hasPrefix("OpenURI \(provider.issuer)/authorize?"), "the portal opened it: \(opened)")
            #expect(!FileManager.default.fileExists(atPath: xdgOpenUsed.path), "xdg-open was not run")
            await emulator.stop()
        }

        @Test func inASandboxWithoutThePortalTheBrowserIsStillOpenedWithXdgOpen() async throws {
            // The harness's bus has no desktop portal: OpenURI fails, says why, and xdg-open is used instead.
            #expect(OpenURIPortal.open("https://example.com/")?.contains("portal") == true)
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let provider = try FakeOAuthProvider(user: ["sub": "oidc-ada", "email": "ada@example.com"])
            defer { provider.stop() }
            let (path, _) = try fakeBrowser()
            let marker = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-info-\(UUID().uuidString)")
            try "[Application]\nname=com.example.App\n".write(to: marker, atomically: true, encoding: .utf8)
            var environment = environment(path: path)
            environment[SandboxDetection.testFlatpakInfoVariable] = marker.path
            let id = String(UUID().uuidString.prefix(8))
            let result = try await cli.run(
                ["sign-in", "--oidc", provider.issuer, "--provider-id", "oidc.fake", "--client-id", provider.clientID, "--client-secret-stdin",
                 "--store", "memory", "--json", "--emulator", address, "--api-key", "AIza-sandbox-\(id)", "--app-id", "1:42:linux:s-\(id)"],
                input: provider.clientSecret! + "\n", environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            #expect((try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])?["providers"] as? [String] == ["oidc.fake"])
            #expect(provider.tokenRequests == 1)
            await emulator.stop()
        }

        @Test func googleWithNoBrowserPrintsGooglesURLAndEndsAtTheTimeLimitChangingNothing() async throws {
            let id = String(UUID().uuidString.prefix(8))
            let app = ["--api-key", "AIza-browser-\(id)", "--app-id", "1:42:linux:g-\(id)"]
            let group = uniqueGroup().rawValue
            let emulator = try await startQuietEmulator()
            let address = "\(try #require(emulator.address))"
            let anonymous = try await cli.run(["sign-in", "--anonymous", "--group", group, "--json", "--emulator", address] + app)
            let object = try JSONSerialization.jsonObject(with: anonymous.standardOutput) as? [String: Any]
            let uid = try #require(object?["uid"] as? String, "\(anonymous.standardError)")

            let result = try await cli.run(
                ["sign-in", "--google", "--client-id", "1234-abc.apps.googleusercontent.com", "--no-browser", "--browser-timeout", "1",
                 "--group", group, "--emulator", address] + app)
            #expect(result.status == 1, "\(result.standardError)")
            let url = try #require(result.standardError.split(separator: "\n").first { $0.hasPrefix("https://") }.map(String.init))
            let items = try #require(URLComponents(string: url)?.queryItems)
            func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
            #expect(url.hasPrefix("https://accounts.google.com/o/oauth2/v2/auth?"))
            #expect(item("client_id") == "1234-abc.apps.googleusercontent.com" && item("code_challenge_method") == "S256")
            #expect(item("redirect_uri")?.hasPrefix("http://127.0.0.1:") == true && item("response_type") == "code")
            #expect(result.standardError.contains("webContextCancelled"))
            let shown = try await cli.run(["show", "--group", group] + app)
            #expect(shown.output.contains("uid: \(uid)"), "the signed-in user is kept")
            await emulator.stop()
        }

        @Test func browserOptionsAreCheckedBeforeAnythingRuns() async throws {
            for arguments in [
                ["--google"], ["--oidc", "https://login.example.com", "--client-id", "c"], ["--google", "--oidc", "https://x", "--client-id", "c"],
                ["--anonymous", "--client-id", "c"], ["--google", "--client-id", "c", "--provider-id", "oidc.x"],
                ["--oidc", "https://login.example.com", "--client-id", "c", "--provider-id", "example"],
                ["--oidc", "https://login.example.com", "--client-id", "c", "--provider-id", "oidc.Not Lower"],
                ["--oidc", "https://login.example.com", "--client-id", "c", "--provider-id", "oidc."],
            ] {
                let result = try await cli.run(["sign-in"] + arguments + ["--api-key", "k", "--app-id", "1:1:linux:a", "--store", "memory"])
                #expect(result.status == 2, "\(arguments): \(result.standardError)")
            }
        }
    }
}
