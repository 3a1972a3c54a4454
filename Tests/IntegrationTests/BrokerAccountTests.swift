import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Subprocesses
import Testing

/// A broker client as a test drives it (`Tests/broker-driver/broker_driver.py`, Gio): one call a line, the answer
/// as JSON, errors read whole from the reply message (a `SecondFactorRequired` carries its handle and factors).
struct BrokerDriver {
    let channel: LineChannel
    /// The client's unique bus name.
    let name: String

    /// A client of `app` (the fixture's by default), sandboxed as the Flatpak app `appID` when given (with the network
    /// unless `network` is false).
    init(
        _ broker: BrokerFixture, as appID: String? = nil, group: String = BrokerFixture.group, app: [String: String]? = nil,
        network: Bool = true
    ) async throws {
        let driver = broker.packageRoot.appendingPathComponent("Tests/broker-driver/broker_driver.py").path
        let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: app ?? broker.app, options: .sortedKeys), as: UTF8.self)
        let command = ["/usr/bin/python3", driver, appJSON, group]
        channel = try LineChannel(appID.map { broker.sandbox(appID: $0, readOnly: [driver], network: network) + command } ?? command)
        let ready = try Self.object(try await channel.nextLine(within: .seconds(60)))
        name = try #require(ready["ready"] as? String, "\(ready) \(channel.standardError)")
    }

    /// Calls `method` with `arguments` (after the app and group) of D-Bus signature `signature`.
    func call(_ method: String, _ signature: String = "", _ arguments: [Any] = [], group: String? = nil) async throws -> [String: Any] {
        var request: [String: Any] = ["method": method, "signature": signature, "args": arguments]
        request["group"] = group
        channel.send(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self))
        return try Self.object(try await channel.nextLine(within: .seconds(90)))
    }

    /// The reply's first value as a dictionary (a user, a token's result), recording the error where there is one.
    func dictionary(_ method: String, _ signature: String = "", _ arguments: [Any] = []) async throws -> [String: Any] {
        let answer = try await call(method, signature, arguments)
        return try #require((answer["reply"] as? [Any])?.first as? [String: Any], "\(method): \(answer)")
    }

    /// Calls a method that answers nothing, recording the error where there is one.
    func succeed(_ method: String, _ signature: String = "", _ arguments: [Any] = []) async throws {
        let answer = try await call(method, signature, arguments)
        #expect(answer["reply"] != nil, "\(method): \(answer)")
    }

    func finish() async -> Int32 { await channel.finish() }

    private static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
}

extension KeyringTests.Broker {
    /// The code of an email action the emulator made for `email` (it mails nothing).
    private func code(_ emulator: AuthEmulator, _ requestType: String, for email: String) throws -> String {
        try #require(emulator.outOfBandCodes.last { $0.requestType == requestType && ($0.email == email || $0.newEmail == email) }?.oobCode,
            "\(requestType) for \(email): \(emulator.outOfBandCodes)")
    }

    /// A new account of `name`-…@example.com with password `a-password`, its address verified (as a second factor
    /// needs), signed in on `app`; answers the address.
    func signUpWithVerifiedEmail(_ app: BrokerDriver, _ broker: BrokerFixture, name: String) async throws -> String {
        let email = "\(name)-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        _ = try await app.dictionary("CreateUserWithEmail", "ss", [email, "a-password"])
        try await app.succeed("SendEmailVerification", "a{sv}", [[String: Any]()])
        try await app.succeed("ApplyActionCode", "s", [try code(broker.emulator, "VERIFY_EMAIL", for: email)])
        return email
    }

    /// Everything after sign-in, through the broker as `Auth` and `User` do it, with a watcher told of each change:
    /// the token's result, the profile, the password, the address verified and changed, a password reset, an email
    /// link, reauthentication, a provider linked and unlinked, the account deleted.
    @Test func theBrokerRunsTheWholeAccountAsAuthDoes() async throws {
        let broker = try await BrokerFixture.start()
        let app = try await BrokerDriver(broker)
        let watcher = try await broker.python(as: nil)
        #expect(try await broker.ask(watcher, "watch") == "ok")
        let email = "ada-\(UUID().uuidString.prefix(6).lowercased())@example.com"

        let created = try await app.dictionary("CreateUserWithEmail", "ss", [email, "first-password"])
        #expect(created["email"] as? String == email && created["providers"] as? String == "password")
        let result = try await app.dictionary("GetIDTokenResult", "b", [false])
        let claims = try #require(try JSONSerialization.jsonObject(with: Data((result["claims"] as? String ?? "").utf8)) as? [String: Any])
        #expect(claims["email"] as? String == email && result["signInProvider"] as? String == "password", "\(result)")
        #expect((result["token"] as? String)?.isEmpty == false && (result["expirationDate"] as? Int ?? 0) > (result["issuedAtDate"] as? Int ?? .max))

        // The profile: set, then a field removed; the watcher hears each change.
        let named = try await app.dictionary("UpdateProfile", "a{sv}", [["displayName": "Ada", "photoURL": "https://example.com/ada.png"]])
        #expect(named["displayName"] as? String == "Ada" && named["photoURL"] as? String == "https://example.com/ada.png")
        _ = try await broker.nextChange(of: watcher) { $0["displayName"] as? String == "Ada" }
        let unnamed = try await app.dictionary("UpdateProfile", "a{sv}", [["displayName": ""]])
        #expect(unnamed["displayName"] == nil && unnamed["photoURL"] as? String == "https://example.com/ada.png")
        _ = try await broker.nextChange(of: watcher) { $0["displayName"] == nil && $0["photoURL"] != nil }

        // The address verified: the code the emulator made, checked, then applied.
        try await app.succeed("SendEmailVerification", "a{sv}", [[String: Any]()])
        let verify = try code(broker.emulator, "VERIFY_EMAIL", for: email)
        let info = try await app.dictionary("CheckActionCode", "s", [verify])
        #expect(info["operation"] as? String == "VERIFY_EMAIL" && info["email"] as? String == email)
        try await app.succeed("ApplyActionCode", "s", [verify])
        #expect(try await app.dictionary("GetUser")["emailVerified"] as? Bool == true)

        // The password changed, then reset with a code; each new password signs in.
        try await app.succeed("UpdatePassword", "s", ["second-password"])
        #expect(try await app.dictionary("SignInWithEmail", "ss", [email, "second-password"])["email"] as? String == email)
        try await app.succeed("SendPasswordReset", "sa{sv}", [email, [String: Any]()])
        let reset = try code(broker.emulator, "PASSWORD_RESET", for: email)
        #expect((try await app.call("VerifyPasswordResetCode", "s", [reset])["reply"] as? [Any])?.first as? String == email)
        try await app.succeed("ConfirmPasswordReset", "ss", [reset, "third-password"])
        let wrong = try await app.call("SignInWithEmail", "ss", [email, "second-password"])
        #expect(wrong["error"] as? String == "Backend" && (wrong["message"] as? String ?? "").hasPrefix("ERROR_"), "\(wrong)")
        _ = try await app.dictionary("SignInWithEmail", "ss", [email, "third-password"])

        // Reauthentication with a password credential; a wrong one is refused, the user kept.
        let credential: [String: Any] = ["providerID": "password", "email": email, "password": "third-password"]
        #expect(try await app.dictionary("Reauthenticate", "a{sv}", [credential])["email"] as? String == email)
        let refused = try await app.call("Reauthenticate", "a{sv}", [["providerID": "password", "email": email, "password": "nope-nope"]])
        #expect(refused["error"] as? String == "Backend", "\(refused)")
        #expect(try await app.dictionary("GetUser")["email"] as? String == email)

        // The address changed after verifying the new one.
        let newEmail = "new-" + email
        try await app.succeed("VerifyBeforeUpdateEmail", "sa{sv}", [newEmail, [String: Any]()])
        try await app.succeed("ApplyActionCode", "s", [try code(broker.emulator, "VERIFY_AND_CHANGE_EMAIL", for: newEmail)])
        _ = try await app.dictionary("SignInWithEmail", "ss", [newEmail, "third-password"])

        // A provider linked and unlinked (the emulator takes an ID token of plain JSON claims).
        let google: [String: Any] = ["providerID": "google.com", "idToken": #"{"sub": "ada-google", "email": "ada@gmail.example"}"#]
        let linked = try await app.dictionary("Link", "a{sv}", [google])
        #expect((linked["providers"] as? String ?? "").split(separator: ",").contains("google.com"), "\(linked)")
        let unlinked = try await app.dictionary("Unlink", "s", ["google.com"])
        #expect(unlinked["providers"] as? String == "password", "\(unlinked)")

        // Signed out, then in with an email link.
        try await app.succeed("SignOut")
        try await app.succeed("SendSignInLink", "sa{sv}", [newEmail, ["url": "https://example.com/finish", "handleCodeInApp": true]])
        let link = try #require(broker.emulator.outOfBandCodes.last { $0.requestType == "EMAIL_SIGNIN" && $0.email == newEmail }?.oobLink)
        #expect(try await app.dictionary("SignInWithEmailLink", "ss", [newEmail, link])["email"] as? String == newEmail)
        let noURL = try await app.call("SendSignInLink", "sa{sv}", [newEmail, [String: Any]()])
        #expect(noURL["error"] as? String == "InvalidArgument", "\(noURL)")

        // Deleted: nobody is signed in, and the watcher hears it.
        try await app.succeed("Delete")
        #expect(try await app.dictionary("GetUser").isEmpty)
        _ = try await broker.nextChange(of: watcher, where: \.isEmpty)
        let none = try await app.call("GetIDTokenResult", "b", [false])
        #expect(none["error"] as? String == "NotSignedIn", "\(none)")
        #expect(await app.finish() == 0)
        #expect(await watcher.finish() == 0)
    }

    /// An authenticator app (TOTP) through the broker: enrolled with the URI the broker answers, then a sign-in that
    /// meets it fails with `SecondFactorRequired`, whose handle and factors the error carries; only the connection that
    /// got the handle finishes the sign-in with the app's code (a wrong one may be corrected), and the factor is removed.
    @Test func aSecondFactorIsEnrolledAndSignedInThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let app = try await BrokerDriver(broker)
        let email = try await signUpWithVerifiedEmail(app, broker, name: "grace")

        let started = try await app.call("StartTOTPEnrollment", "ss", ["", "Example"])
        let reply = try #require(started["reply"] as? [String], "\(started)")
        let (handle, uri) = (reply[0], reply[1])
        #expect(uri.hasPrefix("otpauth://totp/Example:") && (uri.removingPercentEncoding ?? "").contains(email), "\(uri)")
        let secret = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
        let enrolledAt = Date()
        let enrolled = try await app.dictionary("FinishTOTPEnrollment", "sss", [handle, TOTP.code(base32Secret: secret, at: enrolledAt) ?? "-", "Phone"])
        let factors = try #require(enrolled["secondFactors"] as? [[String: Any]], "\(enrolled)")
        #expect(factors.count == 1 && factors[0]["displayName"] as? String == "Phone" && factors[0]["factorID"] as? String == "totp")
        let factorUID = try #require(factors[0]["uid"] as? String)

        try await app.succeed("SignOut")
        let required = try await app.call("SignInWithEmail", "ss", [email, "a-password"])
        #expect(required["error"] as? String == "SecondFactorRequired", "\(required)")
        let body = try #require(required["body"] as? [Any], "\(required)")
        let signInHandle = try #require(body.first as? String)
        #expect(((body.last as? [[String: Any]])?.first?["uid"] as? String) == factorUID, "\(body)")
        #expect((required["message"] as? String ?? "").contains(signInHandle), "the message names the handle for gdbus users")
        #expect(try await app.dictionary("GetUser").isEmpty, "nothing is stored before the second factor")

        // Another connection cannot use the handle; a wrong code is refused and may be corrected.
        let other = try await BrokerDriver(broker)
        let stolen = try await other.call("ResolveSignInWithTOTP", "sss", [signInHandle, factorUID, "000000"])
        #expect(stolen["error"] as? String == "InvalidArgument", "\(stolen)")
        let wrongCode = try await app.call("ResolveSignInWithTOTP", "sss", [signInHandle, factorUID, "000000"])
        #expect(wrongCode["error"] as? String == "Backend" && (wrongCode["message"] as? String ?? "").contains("ERROR_INVALID_VERIFICATION_CODE"),
            "\(wrongCode)")
        let code = try #require(TOTP.code(base32Secret: secret, at: max(enrolledAt.addingTimeInterval(30), Date().addingTimeInterval(-29))))
        let signedIn = try await app.dictionary("ResolveSignInWithTOTP", "sss", [signInHandle, factorUID, code])
        #expect(signedIn["email"] as? String == email)
        let result = try await app.dictionary("GetIDTokenResult", "b", [false])
        #expect(result["signInSecondFactor"] as? String == "totp", "\(result)")
        let used = try await app.call("ResolveSignInWithTOTP", "sss", [signInHandle, factorUID, code])
        #expect(used["error"] as? String == "InvalidArgument", "a finished handle is gone: \(used)")

        let removed = try await app.dictionary("Unenroll", "s", [factorUID])
        #expect(removed["secondFactors"] == nil, "\(removed)")
        #expect(await app.finish() == 0)
        #expect(await other.finish() == 0)
    }

    /// GitHub's device flow through the broker (against ``FakeGitHub``, named by the broker's `--github-host`):
    /// `StartGitHubSignIn` answers the code and the address at once, `FinishGitHubSignIn` waits through GitHub's
    /// answers and signs the group in; the handle is this connection's only, and a declined sign-in stores nothing.
    @Test func gitHubsDeviceFlowRunsThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let github = try FakeGitHub(user: ["sub": "octo-broker", "email": "octo-broker@example.com"], answers: [.pending, .slowDown(interval: 0), .token])
        defer { github.stop() }
        try await broker.serveGitHub(github)
        let app = try await BrokerDriver(broker)
        _ = try await app.call("SignOut")
        let started = try await app.call("StartGitHubSignIn", "a{sv}", [["clientID": "Iv1.broker", "scope": "read:user"]])
        let reply = try #require(started["reply"] as? [Any], "\(started)")
        let handle = try #require(reply.first as? String)
        #expect(reply[1] as? String == "ABCD-1234" && reply[2] as? String == "\(github.base.absoluteString)/login/device")
        #expect((reply[3] as? Int ?? 0) > 800, "GitHub's fifteen minutes: \(reply)")
        #expect(github.codeRequests.first == ["client_id": "Iv1.broker", "scope": "read:user"])

        let other = try await BrokerDriver(broker)
        let stolen = try await other.call("FinishGitHubSignIn", "s", [handle])
        #expect(stolen["error"] as? String == "InvalidArgument", "\(stolen)")
        let user = try await app.dictionary("FinishGitHubSignIn", "s", [handle])
        #expect(user["providers"] as? String == "github.com" && user["email"] as? String == "octo-broker@example.com", "\(user)")
        #expect(github.tokenRequests.count == 3)
        #expect(try await other.dictionary("GetUser")["uid"] as? String == user["uid"] as? String, "the group is signed in")

        let refused = try await app.call("StartGitHubSignIn", "a{sv}", [["scope": "read:user"]])
        #expect(refused["error"] as? String == "InvalidArgument", "no clientID: \(refused)")
        #expect(await app.finish() == 0)
        #expect(await other.finish() == 0)
    }

    /// GitHub's web flow through the broker's `SignInWithBrowser` (`github.com`, the OAuth app's secret), on the
    /// broker's `--github-host`: the browser (a stand-in `xdg-open`) follows GitHub's redirect back to the broker.
    @Test func gitHubsWebFlowRunsThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let github = try FakeOAuthProvider(user: ["sub": "octo-web-broker", "email": "octo-web-broker@example.com"], style: .gitHub)
        defer { github.stop() }
        let (browserPath, _) = try FakeBrowser.make()
        try await broker.stopBroker()
        try await broker.installService(
            idleTimeout: 120, emulatorHost: broker.address.description, path: browserPath, arguments: ["--github-host", github.base])
        let app = try await BrokerDriver(broker)
        let user = try await app.dictionary("SignInWithBrowser", "a{sv}", [[
            "providerID": "github.com", "clientID": github.clientID, "clientSecret": github.clientSecret!,
        ]])
        #expect(user["providers"] as? String == "github.com" && user["email"] as? String == "octo-web-broker@example.com", "\(user)")
        #expect(github.tokenRequests == 1)
        #expect(await app.finish() == 0)
    }

    /// The Firebase project's own provider linked to the signed-in user and signed in again through the broker's
    /// `LinkWithBrowser` and `ReauthenticateWithBrowser` (Firebase's `linkWithPopup`, `reauthenticateWithPopup`), the
    /// stand-in browser completing the emulator's page; with nobody signed in, `NotSignedIn` before any browser opens.
    @Test func theProjectsOwnProviderLinksAndReauthenticatesThroughTheBroker() async throws {
        let broker = try await BrokerFixture.start()
        let (browserPath, page) = try FakeBrowser.make(email: "lin@contoso.example")
        try await broker.stopBroker()
        try await broker.installService(idleTimeout: 120, emulatorHost: broker.address.description, path: browserPath)
        let app = try await BrokerDriver(broker, group: "")
        let provider: [String: Any] = ["providerID": "microsoft.com", "scope": "Mail.Read"]
        let refused = try await app.call("LinkWithBrowser", "a{sv}", [provider])
        #expect(refused["error"] as? String == "NotSignedIn", "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: page.path), "no browser opened")

        let anonymous = try await app.dictionary("SignInAnonymously")
        let linked = try await app.dictionary("LinkWithBrowser", "a{sv}", [provider])
        #expect(linked["uid"] as? String == anonymous["uid"] as? String, "\(linked)")
        #expect((linked["providers"] as? String)?.contains("microsoft.com") == true && linked["email"] as? String == "lin@contoso.example", "\(linked)")
        let again = try await app.dictionary("ReauthenticateWithBrowser", "a{sv}", [provider])
        #expect(again["uid"] as? String == anonymous["uid"] as? String, "\(again)")
        #expect(await app.finish() == 0)
    }

    /// The Firebase project's own provider through the broker's `SignInWithBrowser` (`providerID` alone) for a sandboxed
    /// app with the network: the broker begins it with the emulator's `createAuthUri`, the stand-in browser completes the
    /// emulator's page as Grace and comes back to the broker's `localhost` listener; the second sign-in is the same user.
    /// What belongs to an app's own client is refused with it.
    @Test func theProjectsOwnProviderRunsThroughTheBrokerForASandboxedApp() async throws {
        let broker = try await BrokerFixture.start()
        let (browserPath, _) = try FakeBrowser.make(email: "grace@contoso.example")
        try await broker.stopBroker()
        try await broker.installService(idleTimeout: 120, emulatorHost: broker.address.description, path: browserPath)
        let app = try await BrokerDriver(broker, as: "com.example.Notes")
        let provider: [String: Any] = ["providerID": "microsoft.com", "scope": "Mail.Read", "customParameters": ["tenant": "organizations"]]
        let user = try await app.dictionary("SignInWithBrowser", "a{sv}", [provider])
        #expect(user["providers"] as? String == "microsoft.com" && user["email"] as? String == "grace@contoso.example", "\(user)")
        let again = try await app.dictionary("SignInWithBrowser", "a{sv}", [provider])
        #expect(again["uid"] as? String == user["uid"] as? String)
        for wrong: [String: Any] in [
            ["providerID": "microsoft.com", "clientSecret": "s"], ["providerID": "microsoft.com", "clientID": "c", "scope": "x"],
            ["providerID": "Microsoft"], ["providerID": "microsoft.com", "customParameters": ["": "x"]],
        ] {
            let refused = try await app.call("SignInWithBrowser", "a{sv}", [wrong])
            #expect(refused["error"] as? String == "InvalidArgument", "\(wrong): \(refused)")
        }
        #expect(await app.finish() == 0)
    }
}
