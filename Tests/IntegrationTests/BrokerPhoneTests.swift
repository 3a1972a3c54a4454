import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Subprocesses
import Testing

extension KeyringTests.Broker {
    /// The latest SMS code the emulator made for `number` (it sends none; app verification is off for an emulator).
    private func smsCode(_ broker: BrokerFixture, for number: String) throws -> String {
        try #require(broker.emulator.verificationCodes.last { $0.phoneNumber == number }?.code, "\(number): \(broker.emulator.verificationCodes)")
    }

    private func startedHandle(_ answer: [String: Any]) throws -> String {
        try #require((answer["reply"] as? [Any])?.first as? String, "\(answer)")
    }

    private func expectBackend(_ answer: [String: Any], _ name: String, _ comment: Comment? = nil) {
        #expect(answer["error"] as? String == "Backend" && (answer["message"] as? String ?? "").hasPrefix(name + ": "), "\(comment ?? "") \(answer)")
    }

    private static func number() -> String { "+1555\(Int.random(in: 1_000_000...9_999_999))" }

    /// A phone sign-in through the broker: the code sent, a wrong one refused and corrected, the handle this
    /// connection's only, a resend to the number refused for 30 s; then a number linked and changed on another account.
    @Test func aPhoneNumberSignsInLinksAndChangesThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let app = try await BrokerDriver(broker)
        let number = Self.number()
        let handle = try startedHandle(try await app.call("StartPhoneVerification", "ssa{sv}", [number, "sign-in", [String: Any]()]))
        let other = try await BrokerDriver(broker)
        let stolen = try await other.call("ConfirmPhoneVerification", "ssa{sv}", [handle, try smsCode(broker, for: number), [String: Any]()])
        #expect(stolen["error"] as? String == "InvalidArgument", "another connection cannot use the handle: \(stolen)")
        expectBackend(try await app.call("ConfirmPhoneVerification", "ssa{sv}", [handle, "000000", [String: Any]()]), "ERROR_INVALID_VERIFICATION_CODE")
        let user = try await app.dictionary("ConfirmPhoneVerification", "ssa{sv}", [handle, try smsCode(broker, for: number), [String: Any]()])
        #expect(user["phoneNumber"] as? String == number, "\(user)")
        expectBackend(
            try await app.call("StartPhoneVerification", "ssa{sv}", [number, "sign-in", [String: Any]()]), "ERROR_TOO_MANY_REQUESTS",
            "a resend within 30 s")

        // An anonymous account links a number, then changes it (a verification of either purpose serves both).
        try await app.succeed("SignOut")
        _ = try await app.dictionary("SignInAnonymously")
        let (first, second) = (Self.number(), Self.number())
        let linkHandle = try startedHandle(try await app.call("StartPhoneVerification", "ssa{sv}", [first, "link", [String: Any]()]))
        let linked = try await app.dictionary("ConfirmPhoneVerification", "ssa{sv}", [linkHandle, try smsCode(broker, for: first), [String: Any]()])
        #expect(linked["phoneNumber"] as? String == first && (linked["providers"] as? String ?? "").contains("phone"), "\(linked)")
        let changeHandle = try startedHandle(try await app.call("StartPhoneVerification", "ssa{sv}", [second, "link", [String: Any]()]))
        let changed = try await app.dictionary(
            "ConfirmPhoneVerification", "ssa{sv}", [changeHandle, try smsCode(broker, for: second), ["purpose": "update"] as [String: Any]])
        #expect(changed["phoneNumber"] as? String == second, "\(changed)")
        let enroll = try await app.call("ConfirmPhoneVerification", "ssa{sv}", [changeHandle, "123456", ["purpose": "enroll"] as [String: Any]])
        #expect(enroll["error"] as? String == "InvalidArgument", "a used handle is gone: \(enroll)")
        #expect(await app.finish() == 0)
        #expect(await other.finish() == 0)
    }

    /// An SMS second factor enrolled through the broker, then met at sign-in: `StartPhoneSecondFactor` with the
    /// sign-in's handle and the factor's uid sends its code, and `ConfirmPhoneVerification` finishes the sign-in.
    @Test func anSMSSecondFactorIsEnrolledAndSignedInThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let app = try await BrokerDriver(broker)
        let email = try await signUpWithVerifiedEmail(app, broker, name: "hedy")
        let number = Self.number()
        let enrollHandle = try startedHandle(try await app.call("StartPhoneVerification", "ssa{sv}", [number, "enroll", [String: Any]()]))
        let enrolled = try await app.dictionary(
            "ConfirmPhoneVerification", "ssa{sv}", [enrollHandle, try smsCode(broker, for: number), ["displayName": "Work phone"] as [String: Any]])
        let factors = try #require(enrolled["secondFactors"] as? [[String: Any]], "\(enrolled)")
        #expect(factors.count == 1 && factors[0]["factorID"] as? String == "phone" && factors[0]["displayName"] as? String == "Work phone")
        let factorUID = try #require(factors[0]["uid"] as? String)

        try await app.succeed("SignOut")
        let required = try await app.call("SignInWithEmail", "ss", [email, "a-password"])
        #expect(required["error"] as? String == "SecondFactorRequired", "\(required)")
        let body = try #require(required["body"] as? [Any], "\(required)")
        let signInHandle = try #require(body.first as? String)
        let hint = try #require((body.last as? [[String: Any]])?.first, "\(body)")
        #expect(hint["uid"] as? String == factorUID && (hint["phoneNumber"] as? String ?? "").hasSuffix(String(number.suffix(4))), "\(hint)")
        let notSMS = try await app.call("StartPhoneSecondFactor", "ssa{sv}", [signInHandle, "no-such-factor", [String: Any]()])
        #expect(notSMS["error"] as? String == "InvalidArgument", "\(notSMS)")
        let smsHandle = try startedHandle(try await app.call("StartPhoneSecondFactor", "ssa{sv}", [signInHandle, factorUID, [String: Any]()]))
        let code = try #require(broker.emulator.verificationCodes.last?.code)
        let signedIn = try await app.dictionary("ConfirmPhoneVerification", "ssa{sv}", [smsHandle, code, [String: Any]()])
        #expect(signedIn["email"] as? String == email, "\(signedIn)")
        let result = try await app.dictionary("GetIDTokenResult", "b", [false])
        #expect(result["signInSecondFactor"] as? String == "phone", "\(result)")
        let used = try await app.call("ResolveSignInWithTOTP", "sss", [signInHandle, factorUID, "000000"])
        #expect(used["error"] as? String == "InvalidArgument", "the finished sign-in's handle is gone: \(used)")
        #expect(await app.finish() == 0)
    }

    /// A sandboxed app is refused a phone verification for another domain's group before anything is sent; a
    /// caller's verifications are steps of its app, five wrong codes end one, and a caller that leaves drops its own.
    @Test func aSandboxedAppsVerificationsAreItsOwnAndEndWithItsConnection() async throws {
        let broker = try await BrokerFixture.start()
        let evil = try await BrokerDriver(broker, as: "org.evil.App")
        let refused = try await evil.call("StartPhoneVerification", "ssa{sv}", [Self.number(), "sign-in", [String: Any]()])
        #expect(refused["error"] as? String == "AccessDenied", "\(refused)")
        #expect(broker.emulator.verificationCodes.isEmpty, "nothing was sent for a refused call")
        #expect(await evil.finish() == 0)

        // Four steps at most per app: four verifications, then a refusal; five wrong codes end one.
        let notes = try await BrokerDriver(broker, as: "com.example.Notes")
        var handles: [String] = []
        for _ in 0..<4 { handles.append(try startedHandle(try await notes.call("StartPhoneVerification", "ssa{sv}", [Self.number(), "sign-in", [String: Any]()]))) }
        let fifth = try await notes.call("StartPhoneVerification", "ssa{sv}", [Self.number(), "sign-in", [String: Any]()])
        #expect(fifth["error"] as? String == "Failed" && (fifth["message"] as? String ?? "").contains("Too many steps"), "\(fifth)")
        for attempt in 1...5 {
            expectBackend(try await notes.call("ConfirmPhoneVerification", "ssa{sv}", [handles[0], "000000", [String: Any]()]),
                "ERROR_INVALID_VERIFICATION_CODE", "wrong code \(attempt)")
        }
        let ended = try await notes.call("ConfirmPhoneVerification", "ssa{sv}", [handles[0], "000000", [String: Any]()])
        #expect(ended["error"] as? String == "InvalidArgument", "the fifth wrong code ended it: \(ended)")

        // The connection leaves: its three verifications end, and the app's next connection has its share again.
        #expect(await notes.finish() == 0)
        let again = try await BrokerDriver(broker, as: "com.example.Notes")
        let deadline = ContinuousClock.now + .seconds(10)
        var started = 0
        while started < 4, ContinuousClock.now < deadline {
            let answer = try await again.call("StartPhoneVerification", "ssa{sv}", [Self.number(), "sign-in", [String: Any]()])
            if answer["reply"] != nil { started += 1 } else { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(started == 4, "the departed connection's steps were let go")
        #expect(await again.finish() == 0)
    }

    /// A sandboxed app's phone sign-in with app verification on (`KEYRING_AUTH_EMULATOR_VERIFIES_APPS`, as against
    /// Firebase), the emulator's stand-in reCAPTCHA in ENFORCE: the broker runs the page on the host and opens it in a real
    /// browser (chromium, its `xdg-open` first on the broker's `PATH`), whose Enterprise check needs no click; the code the
    /// emulator made then signs the app in. The app has the network: without it the broker reaches no emulator for it.
    @Test func theBrokerShowsASandboxedAppsPhoneVerificationPageInARealBrowser() async throws {
        let broker = try await BrokerFixture.start(recaptcha: .init(enforcement: .enforce))
        let browser = try RealBrowser.make([.waitForText("Verified")], timeout: .seconds(60))
        defer { browser.remove() }
        try await broker.stopBroker()
        try await broker.installService(
            idleTimeout: 120, emulatorHost: broker.address.description, path: browser.path,
            environment: ["KEYRING_AUTH_EMULATOR_VERIFIES_APPS": "1"])
        let app = try await BrokerDriver(broker, as: "com.example.Notes")
        let number = Self.number()
        let (handle, run) = try await browser.run {
            try startedHandle(try await app.call("StartPhoneVerification", "ssa{sv}", [number, "sign-in", [String: Any]()]))
        }
        let page = try #require(run.final)
        #expect(page.url.hasPrefix("http://localhost:") && page.title == "Verified", "\(page)")

        let sent = broker.emulator.receivedRequests.filter { $0.operation == "accounts:sendVerificationCode" }.map(\.appVerification)
        #expect(sent.count == 1, "one request, accepted at once: \(sent)")
        let fields = try #require(sent.last)
        #expect(fields["clientType"] == "CLIENT_TYPE_WEB" && fields["recaptchaVersion"] == "RECAPTCHA_ENTERPRISE", "\(fields)")
        #expect(fields["captchaResponse"].map { $0 != "NO_RECAPTCHA" && !$0.isEmpty } == true && fields["recaptchaToken"] == nil, "\(fields)")

        let user = try await app.dictionary("ConfirmPhoneVerification", "ssa{sv}", [handle, try smsCode(broker, for: number), [String: Any]()])
        #expect(user["phoneNumber"] as? String == number && (user["providers"] as? String ?? "").contains("phone"), "\(user)")
        let current = try await app.dictionary("GetUser")
        #expect(current["phoneNumber"] as? String == number, "\(current)")
        #expect(await app.finish() == 0)
        print("BrokerPhoneTests: ENFORCE through the broker in chromium took \(run.seconds) s")
    }

    /// A sandboxed app without the network (no `--share=network`) gets its verification page through the broker all the
    /// same: the broker serves the page on the host and opens it in the person's browser (chromium), and makes the
    /// requests. Its Firebase is the emulator the broker's service names for every app (`--emulator`, a test session's):
    /// an app without the network may not name one itself.
    @Test func aSandboxedAppWithoutTheNetworkGetsItsVerificationPageThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start(recaptcha: .init(enforcement: .enforce))
        let browser = try RealBrowser.make([.waitForText("Verified")], timeout: .seconds(60))
        defer { browser.remove() }
        try await broker.stopBroker()
        try await broker.installService(
            idleTimeout: 120, emulatorHost: broker.address.description, path: browser.path, arguments: ["--emulator", broker.address.description],
            environment: ["KEYRING_AUTH_EMULATOR_VERIFIES_APPS": "1"])
        var firebaseApp = broker.app
        firebaseApp["emulatorHost"] = nil
        let notes = try await BrokerDriver(broker, as: "com.example.Notes", app: firebaseApp, network: false)
        let number = Self.number()
        let (handle, run) = try await browser.run {
            try startedHandle(try await notes.call("StartPhoneVerification", "ssa{sv}", [number, "sign-in", [String: Any]()]))
        }
        #expect(run.final?.title == "Verified", "\(run)")
        let user = try await notes.dictionary("ConfirmPhoneVerification", "ssa{sv}", [handle, try smsCode(broker, for: number), [String: Any]()])
        #expect(user["phoneNumber"] as? String == number, "\(user)")
        #expect(await notes.finish() == 0)

        let naming = try await BrokerDriver(broker, as: "com.example.Notes", network: false)
        let refused = try await naming.call("GetUser")
        #expect(refused["error"] as? String == "AccessDenied" && "\(refused)".contains("network"), "\(refused)")
        #expect(await naming.finish() == 0)
    }

    /// A Python app with no browser of the broker's (`VerificationPage(open_browser=False)`) is told the page's address
    /// (`on_address`) and opens it itself, in a real browser (chromium), where the stand-in reCAPTCHA's Enterprise check
    /// (ENFORCE) passes; the code then signs the app in. The broker's own `xdg-open` is never run.
    @Test func aPythonAppIsToldItsPhoneVerificationPagesAddress() async throws {
        let broker = try await BrokerFixture.start(recaptcha: .init(enforcement: .enforce))
        let browser = try RealBrowser.make([.waitForText("Verified")], timeout: .seconds(60))
        defer { browser.remove() }
        let brokerPath = broker.harness.root.appendingPathComponent("broker-path-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: brokerPath, withIntermediateDirectories: true)
        let opened = brokerPath.appendingPathComponent("opened")
        try "#!/bin/sh\necho \"$1\" >> '\(opened.path)'\n".write(to: brokerPath.appendingPathComponent("xdg-open"), atomically: true, encoding: .utf8)
        #expect(chmod(brokerPath.appendingPathComponent("xdg-open").path, 0o755) == 0)
        try await broker.stopBroker()
        try await broker.installService(
            idleTimeout: 120, emulatorHost: broker.address.description, path: brokerPath.path,
            environment: ["KEYRING_AUTH_EMULATOR_VERIFIES_APPS": "1"])

        let made = try await Subprocess.run(broker.packageRoot.appendingPathComponent("scripts/python-client-env").path, [], limit: .seconds(600))
        try made.requireSuccess("scripts/python-client-env")
        let script = broker.harness.root.appendingPathComponent("phone-\(UUID().uuidString.prefix(8)).py")
        try """
            import json, subprocess, sys
            from keyringauth import Auth, FirebaseOptions, VerificationPage, sign_in_with_phone_number
            app, group, number, opener = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

            def show(address):
                print("page", address.split("#")[0], flush=True)
                subprocess.Popen([opener, address])

            options = FirebaseOptions(api_key=app["apiKey"], app_id="1:42:linux:python-phone", project_id=app["projectID"])
            with Auth(options, access_group=group) as auth:
                confirmation = sign_in_with_phone_number(auth, number, VerificationPage(on_address=show, open_browser=False))
                print("sent", flush=True)
                print("user", confirmation.confirm(sys.stdin.readline().strip()).user.phone_number, flush=True)
            """.write(to: script, atomically: true, encoding: .utf8)
        let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app), as: UTF8.self)
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = broker.address.description
        environment["PYTHONPATH"] = broker.packageRoot.appendingPathComponent("clients/python/src").path
        let number = Self.number()
        let app = try LineChannel(
            [made.output.trimmingCharacters(in: .whitespacesAndNewlines), script.path, appJSON, "TEAMID.com.example.shared", number,
             browser.directory.appendingPathComponent("xdg-open").path],
            environment: environment)
        let page = try await app.nextLine(within: .seconds(120))
        #expect(page.hasPrefix("page http://localhost:") && page.hasSuffix("/"), "\(page) \(app.standardError)")
        let run = try await browser.nextRun(within: .seconds(120))
        #expect(run.final?.title == "Verified", "\(run)")
        #expect(try await app.nextLine(within: .seconds(60)) == "sent", "\(app.standardError)")
        app.send(try smsCode(broker, for: number))
        #expect(try await app.nextLine(within: .seconds(60)) == "user \(number)", "\(app.standardError)")
        #expect(!FileManager.default.fileExists(atPath: opened.path), "the broker opened no browser")
        let sent = broker.emulator.receivedRequests.filter { $0.operation == "accounts:sendVerificationCode" }.map(\.appVerification)
        #expect(sent.count == 1 && sent.last?["recaptchaVersion"] == "RECAPTCHA_ENTERPRISE", "\(sent)")
    }
}
