import Foundation
import KeyringTestSupport
import Subprocesses
import Testing

extension KeyringTests.Broker {
    /// The Python package (`clients/python`), installed from the checkout with pip into a virtual environment of its own
    /// (`scripts/python-client-env`), passes its pytest suite against this broker and emulator on the harness's keyring:
    /// every method, listeners, second factors, bad input, options files, and the package inside a Flatpak-like sandbox.
    /// The broker's browser is the stand-in one (an `xdg-open` on its activation `PATH`), which completes the emulator's
    /// provider page as the address `KEYRING_AUTH_TEST_BROWSER_EMAIL` names: `sign_in_with_popup`'s person.
    @Test func thePythonPackagePassesItsTests() async throws {
        let broker = try await BrokerFixture.start()
        // GitHub's device flow through the broker, against a fake GitHub the broker is told of.
        let github = try FakeGitHub(user: ["sub": "octo-python", "email": "octo-python@example.com"], answers: [.pending, .token])
        defer { github.stop() }
        let browserEmail = "popup-python@contoso.example"
        let (browserPath, _) = try FakeBrowser.make(email: browserEmail)
        try await broker.serveGitHub(github, browserPath: browserPath)
        let environmentScript = broker.packageRoot.appendingPathComponent("scripts/python-client-env").path
        let made = try await Subprocess.run(environmentScript, [], limit: .seconds(600))
        try made.requireSuccess("scripts/python-client-env")
        let python = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = broker.address.description
        environment["KEYRING_AUTH_RUN_AS_FLATPAK"] = broker.harness.scripts.appendingPathComponent("run-as-flatpak").path
        environment["KEYRING_AUTH_TEST_GITHUB"] = github.base.absoluteString
        environment["KEYRING_AUTH_TEST_BROWSER_EMAIL"] = browserEmail
        let tests = broker.packageRoot.appendingPathComponent("clients/python/tests").path
        // App Check's tests (tests/appcheck) need an emulator that enforces App Check: pythonAppsPassAppCheckEnforcedByTheEmulator.
        let result = try await Subprocess.run(
            python, ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", tests, "--ignore=\(tests)/appcheck"], environment: environment,
            limit: .seconds(600))
        #expect(result.status == 0, "\(result.output)\(result.standardError)")
        #expect(result.output.contains(" passed") && !result.output.contains("skipped"), "every test ran: \(result.output)")
    }
}

extension KeyringTests.Broker {
    /// The package's App Check (`clients/python/tests/appcheck`, run by this test only) against an emulator that enforces
    /// App Check on Auth, with a debug secret registered: a Python app signs in, refreshes, updates and deletes its account
    /// with the debug provider and with a custom provider whose backend mints tokens at the emulator
    /// (`exchangeCustomToken`, as the Admin SDK's `createToken`); without a token every call fails with the clear error
    /// and nothing is stored; a failing provider's placeholder and an unregistered secret are refused; a sandboxed app
    /// obtains its own token. The emulator counts the exchanges the apps made.
    @Test func pythonAppsPassAppCheckEnforcedByTheEmulator() async throws {
        let secret = UUID().uuidString
        let broker = try await BrokerFixture.start(appCheck: .init(enforcesOnAuth: true, debugTokens: [secret]))
        let made = try await Subprocess.run(broker.packageRoot.appendingPathComponent("scripts/python-client-env").path, [], limit: .seconds(600))
        try made.requireSuccess("scripts/python-client-env")
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = broker.address.description
        environment["KEYRING_AUTH_RUN_AS_FLATPAK"] = broker.harness.scripts.appendingPathComponent("run-as-flatpak").path
        environment["KEYRING_AUTH_TEST_APP_CHECK_DEBUG_TOKEN"] = secret
        let tests = broker.packageRoot.appendingPathComponent("clients/python/tests/appcheck").path
        let result = try await Subprocess.run(
            made.output.trimmingCharacters(in: .whitespacesAndNewlines), ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", tests],
            environment: environment, limit: .seconds(300))
        #expect(result.status == 0, "\(result.output)\(result.standardError)")
        #expect(result.output.contains(" passed") && !result.output.contains("skipped"), "every test ran: \(result.output)")
        #expect(!(result.output + result.standardError).contains(secret), "the debug secret in no output")
        let exchanges = broker.emulator.appCheckExchanges
        #expect(exchanges.allSatisfy { $0.appID.hasPrefix("1:42:linux:py-") }, "each the exchange of a test's own app: \(exchanges)")
        #expect(exchanges.contains { $0.method == .exchangeDebugToken && $0.issued && !$0.limitedUse }, "\(exchanges)")
        #expect(exchanges.contains { $0.method == .exchangeDebugToken && $0.issued && $0.limitedUse }, "get_limited_use_token: \(exchanges)")
        #expect(exchanges.contains { $0.method == .exchangeDebugToken && !$0.issued }, "the unregistered secret: \(exchanges)")
        #expect(exchanges.contains { $0.method == .exchangeCustomToken && $0.issued }, "the custom provider's backend: \(exchanges)")
        let passed = broker.emulator.receivedRequests.filter { $0.appCheckAppID != nil }
        #expect(!passed.isEmpty && passed.allSatisfy { $0.appCheckAppID!.hasPrefix("1:42:linux:py-") }, "\(passed.map(\.operation))")
    }
}

extension KeyringTests.Broker {
    /// A Python app on the package (sandboxed as the Flatpak app `com.example.Notes`) and a Swift app of one group
    /// follow each other live: the Swift app signs in and the Python app's listener hears it; the Python app signs out
    /// and the Swift app's listener hears it.
    @Test func aPythonAppAndASwiftAppFollowEachOtherLive() async throws {
        let broker = try await BrokerFixture.start()
        let made = try await Subprocess.run(broker.packageRoot.appendingPathComponent("scripts/python-client-env").path, [], limit: .seconds(600))
        try made.requireSuccess("scripts/python-client-env")
        // The package's source and its dependency's, on the path of the sandbox's Python.
        let source = broker.packageRoot.appendingPathComponent("clients/python/src").path
        let sitePackages = try await Subprocess.run(made.output.trimmingCharacters(in: .whitespacesAndNewlines), [
            "-c", "import jeepney, os; print(os.path.dirname(os.path.dirname(jeepney.__file__)))",
        ])
        let jeepney = sitePackages.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let script = broker.harness.root.appendingPathComponent("notes-\(UUID().uuidString.prefix(8)).py")
        try """
            import json, sys
            from keyringauth import Auth, FirebaseOptions
            app = json.loads(sys.argv[1])
            options = FirebaseOptions(api_key=app["apiKey"], app_id="1:42:linux:python-notes", project_id=app["projectID"])
            with Auth(options, access_group=sys.argv[2]) as auth:
                auth.on_auth_state_changed(lambda user: print("state", user.uid if user else "none", flush=True))
                for line in sys.stdin:
                    if line.strip() == "sign-out":
                        auth.sign_out()
            """.write(to: script, atomically: true, encoding: .utf8)
        let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app), as: UTF8.self)
        let notes = try LineChannel([
            broker.harness.scripts.appendingPathComponent("run-as-flatpak").path, "--share=network", "--ro", source, "--ro", jeepney, "--ro", script.path,
            "--env", "PYTHONPATH=\(source):\(jeepney)", "com.example.Notes", "/usr/bin/python3", script.path, appJSON, "TEAMID.com.example.shared",
        ])
        #expect(try await notes.nextLine(within: .seconds(60)) == "state none", "\(notes.standardError)")

        let swiftApp = try broker.swiftApp()
        let log = ListenerLog()
        let handle = swiftApp.addStateDidChangeListener { _, user in log.record(user) }
        defer { swiftApp.removeStateDidChangeListener(handle) }
        #expect(try await log.next() == nil)
        let uid = try await swiftApp.signInAnonymously().user.uid
        #expect(try await notes.nextLine(within: .seconds(60)) == "state \(uid)", "\(notes.standardError)")

        notes.send("sign-out")
        #expect(try await log.next { $0 == nil } == nil)
        #expect(try await notes.nextLine(within: .seconds(60)) == "state none")
        #expect(await notes.finish() == 0, "\(notes.standardError)")
    }
}
