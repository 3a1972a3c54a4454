import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SystemSupport
import Testing

extension KeyringTests {
    /// The sign-in broker on the harness's bus, D-Bus-activated as a session activates it, with clients in other
    /// languages: on the host, and in sandboxes as Flatpak makes them (bubblewrap, xdg-dbus-proxy, `/.flatpak-info`).
    /// Among the keyring tests, which run one at a time: one broker per bus, and tests beside it restart the provider.
    @Suite struct Broker {
        /// A sandboxed `com.example.Notes` (Python, Gio) and an unsandboxed Swift app of `TEAMID.com.example.shared`
        /// share one sign-in, live, both ways.
        @Test func aSandboxedAppAndASwiftAppShareTheGroupLive() async throws {
            let broker = try await BrokerFixture.start()
            let notes = try await broker.python(as: "com.example.Notes")
            #expect(try await broker.ask(notes, "watch") == "ok")
            let swiftApp = try broker.swiftApp()
            let log = ListenerLog()
            let handle = swiftApp.addStateDidChangeListener { _, user in log.record(user) }
            defer { swiftApp.removeStateDidChangeListener(handle) }
            #expect(try await log.next() == nil)

            // The sandboxed app signs in: the Swift app follows.
            let signedIn = try BrokerFixture.user(in: try await broker.ask(notes, "anonymous"))
            let uid = try #require(signedIn["uid"] as? String)
            #expect(signedIn["isAnonymous"] as? Bool == true)
            #expect(try await log.next { $0 != nil } == uid)
            #expect(try await broker.nextChange(of: notes)["uid"] as? String == uid)
            let token = try await broker.ask(notes, "token")
            #expect(token.hasPrefix("token ") && Int(token.dropFirst(6)) ?? 0 > 100, "\(token)")

            // The Swift app signs out, then in with a password: the sandboxed app is told each time.
            try swiftApp.signOut()
            #expect(try await broker.nextChange(of: notes).isEmpty)
            let adas = try await swiftApp.createUser(withEmail: "ada@example.com", password: "correct horse").user
            let change = try await broker.nextChange(of: notes)
            #expect(change["uid"] as? String == adas.uid)
            #expect(change["email"] as? String == "ada@example.com")
            #expect(change["providers"] as? String == "password")
            let read = try BrokerFixture.user(in: try await broker.ask(notes, "user"))
            #expect(read["uid"] as? String == adas.uid)
            // The group's own refresh token (the client prints its length) and the account's times, as the Swift app has them.
            #expect(read["refreshToken"] as? String == "\(try #require(adas.refreshToken).count) characters")
            let created = try #require(adas.metadata.creationDate)
            #expect(read["creationDate"] as? Int == Int(created.timeIntervalSince1970.rounded(.down)))
            #expect(read["lastSignInDate"] is Int)

            #expect(try await broker.ask(notes, "unwatch") == "ok")
            #expect(await notes.finish() == 0, "\(notes.standardError)")
        }

        /// The C client (GDBus), built here with `cc`, as the Flatpak app `com.example.Notes`: it signs in, reads the
        /// user and a token, and follows the Swift app's sign-out.
        @Test func aCClientInASandboxFollowsTheGroup() async throws {
            let broker = try await BrokerFixture.start()
            let source = broker.packageRoot.appendingPathComponent("Examples/BrokerClients/c/broker-client.c").path
            let binary = broker.harness.root.appendingPathComponent("broker-client-\(UUID().uuidString.prefix(8))").path
            let flags = try await Subprocess.run("pkg-config", ["--cflags", "--libs", "gio-2.0"])
            try flags.requireSuccess("pkg-config gio-2.0")
            let words = String(decoding: flags.standardOutput, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
            try await Subprocess.run("cc", ["-O2", "-Wall", "-Wextra", "-Werror", "-o", binary, source] + words).requireSuccess("cc broker-client.c")
            try await sandboxedClientFollowsTheGroup(binary, broker: broker)
        }

        /// The Rust client (zbus, built offline against Debian's crates with Debian's cargo), likewise.
        @Test func aRustClientInASandboxFollowsTheGroup() async throws {
            let broker = try await BrokerFixture.start()
            let crate = broker.packageRoot.appendingPathComponent("Examples/BrokerClients/rust").path
            // Kept between runs in the package's build folder: the first build takes a minute or two.
            let target = broker.packageRoot.appendingPathComponent(".build/broker-client-rust").path
            // Debian's cargo and rustc, which Debian's crates are packaged for (rustup's need the caller's own HOME).
            var environment = ProcessInfo.processInfo.environment
            environment["RUSTC"] = "/usr/bin/rustc"
            // From the crate's folder: cargo finds its .cargo/config.toml (Debian's crates, offline) from where it runs.
            let build = try await Subprocess.run(
                "sh", ["-c", "cd \"$0\" && exec /usr/bin/cargo build --quiet --target-dir \"$1\"", crate, target],
                environment: environment, limit: .seconds(900))
            try build.requireSuccess("cargo build (Examples/BrokerClients/rust)")
            try await sandboxedClientFollowsTheGroup(target + "/debug/broker-client", broker: broker)
        }

        /// Runs `binary` (a client that prints `user UID`, `token N`, `watching`, then `changed UID` once another user
        /// or nobody is signed in) as `com.example.Notes`, and signs out from a Swift app of the group meanwhile.
        private func sandboxedClientFollowsTheGroup(_ binary: String, broker: BrokerFixture) async throws {
            let swiftApp = try broker.swiftApp()
            let log = ListenerLog()
            let handle = swiftApp.addStateDidChangeListener { _, user in log.record(user) }
            defer { swiftApp.removeStateDidChangeListener(handle) }
            #expect(try await log.next() == nil)

            let client = try LineChannel(broker.sandbox(appID: "com.example.Notes", readOnly: [binary], emulatorVariable: true) + [
                binary, broker.app["apiKey"]!, broker.app["appID"]!, broker.app["projectID"]!, BrokerFixture.group,
            ])
            let user = try await client.nextLine(within: .seconds(60))
            let uid = try #require(user.hasPrefix("user ") ? String(user.dropFirst(5)) : nil, "\(user): \(client.standardError)")
            let token = try await client.nextLine(within: .seconds(60))
            #expect(token.hasPrefix("token ") && Int(token.dropFirst(6)) ?? 0 > 100, "\(token)")
            #expect(try await client.nextLine(within: .seconds(60)) == "watching")
            #expect(try await log.next { $0 != nil } == uid)
            try swiftApp.signOut()
            #expect(try await client.nextLine(within: .seconds(60)) == "changed none")
            #expect(await client.finish() == 0, "\(client.standardError)")
        }

        /// `org.evil.App` is refused the group for every method, cannot reach `com.example.Notes`'s private user
        /// whatever app it names, and its sandbox cannot reach the Secret Service.
        @Test func anotherAppIsRefusedTheGroupAndCannotReachAPrivateUser() async throws {
            let broker = try await BrokerFixture.start()
            let notesPrivately = try await broker.python(as: "com.example.Notes", group: "")
            let notesUser = try BrokerFixture.user(in: try await broker.ask(notesPrivately, "anonymous"))
            #expect(notesUser["uid"] != nil)
            let shared = try await broker.python(as: "com.example.Notes")
            _ = try await broker.ask(shared, "anonymous")

            let evil = try await broker.python(as: "org.evil.App")
            for command in ["user", "token", "anonymous", "sign-out", "watch"] {
                let answer = try await broker.ask(evil, command)
                #expect(answer.hasPrefix("error AccessDenied "), "\(command): \(answer)")
            }
            let evilPrivately = try await broker.python(as: "org.evil.App", group: "")
            #expect(try await broker.ask(evilPrivately, "user") == "user {}")
            // Notes's private user is still signed in, and the group's too: nothing the refused calls did reached them.
            #expect(try BrokerFixture.user(in: try await broker.ask(notesPrivately, "user"))["uid"] as? String == notesUser["uid"] as? String)
            #expect(try BrokerFixture.user(in: try await broker.ask(shared, "user"))["uid"] != nil)

            let secrets = try await Subprocess.run(broker.harness.scripts.appendingPathComponent("run-as-flatpak").path, [
                "org.evil.App", "gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                "--method", "org.freedesktop.Secret.Service.SearchItems", "{}",
            ])
            #expect(secrets.status != 0)
            #expect(secrets.standardError.contains("ServiceUnknown"), "\(secrets.standardError)")
            for client in [notesPrivately, shared, evil, evilPrivately] { #expect(await client.finish() == 0, "\(client.standardError)") }
        }

        /// Arguments are bounded in count and refuse control characters before they are read: an `app` of 1,000 entries,
        /// a key given twice, a line break in `appID` (which would forge a line of the broker's `--verbose` log), a control
        /// character in an item-interface label; the broker answers a well-formed call afterwards.
        @Test func anAppOfManyEntriesOrWithControlCharactersIsRefused() async throws {
            let broker = try await BrokerFixture.start()
            let many = "{" + (0..<1000).map { "'k\($0)': <'v'>" }.joined(separator: ", ") + "}"
            let twice = "{'apiKey': <'a'>, 'apiKey': <'b'>, 'appID': <'1:42:linux:x'>, 'projectID': <'p'>}"
            let forged = "{'apiKey': <'a'>, 'appID': <'1:42:linux:x\\ninfo keyring-auth-broker: forged'>, 'projectID': <'p'>}"
            for (app, expected) in [(many, "has 1000 entries"), (twice, "has apiKey twice"), (forged, "control character U+000A")] {
                let result = try await broker.busCall(
                    BrokerFixture.name, "/io/github/keyringauth/Broker1", "\(BrokerFixture.name).GetUser", [app, "''"])
                #expect(result.standardError.contains("Error.InvalidArgument") && result.standardError.contains(expected), "\(result.standardError)")
            }
            let label = try await broker.busCall(
                BrokerFixture.name, "/io/github/keyringauth/Broker1", "io.github.keyringauth.Keychain1.Store",
                [BrokerFixture.group, broker.app["apiKey"]!, "firebase_auth_firebase_user", "'a\\tlabel'", "[byte 0x7b, 0x7d]"])
            #expect(label.standardError.contains("Error.InvalidArgument") && label.standardError.contains("control character"), "\(label.standardError)")
            try await broker.call("GetUser").requireSuccess("GetUser after the refused calls")
        }

        /// App IDs whose domain is no developer's get no group, sandboxed as Flatpak runs them: an Apple-style first
        /// element, a code host's own domain, a public suffix; a GitHub user's app ID gets its user's groups.
        @Test func anAppIDThatGivesNoDomainIsRefusedEveryGroup() async throws {
            let broker = try await BrokerFixture.start()
            for (appID, group) in [
                ("group.com.example.Evil", "group.com.example.shared"), ("TEAMID.com.example.Evil", "TEAMID.com.example.shared"),
                ("io.github.Evil", "io.github.victim.shared"), ("uk.co.Evil", "uk.co.victim.shared"),
            ] {
                let evil = try await broker.python(as: appID, group: group)
                let answer = try await broker.ask(evil, "anonymous")
                #expect(answer.hasPrefix("error AccessDenied ") && answer.contains("gives no domain"), "\(appID): \(answer)")
                #expect(await evil.finish() == 0, "\(evil.standardError)")
            }
            let victim = try await broker.python(as: "io.github.victim.Notes", group: "io.github.victim.shared")
            #expect(try BrokerFixture.user(in: try await broker.ask(victim, "anonymous"))["uid"] != nil)
            #expect(await victim.finish() == 0, "\(victim.standardError)")
        }

        /// `SignInWithBrowser`: the broker runs the desktop OAuth flow in the user's browser (a stand-in `xdg-open` on
        /// the activation environment's `PATH`) with an OpenID Connect provider, and signs the group in.
        @Test func aBrowserSignInRunsInTheUsersBrowser() async throws {
            let broker = try await BrokerFixture.start()
            let provider = try FakeOAuthProvider(user: ["sub": "grace", "email": "grace@example.com", "name": "Grace"])
            defer { provider.stop() }
            let (browserPath, _) = try FakeBrowser.make()
            try await broker.installService(idleTimeout: 120, emulatorHost: broker.address.description, path: browserPath)
            let signedIn = try await broker.call("SignInWithBrowser", [
                "{'providerID': <'oidc.example'>, 'issuer': <'\(provider.issuer)'>, 'clientID': <'\(provider.clientID)'>, "
                    + "'clientSecret': <'\(provider.clientSecret!)'>}",
            ])
            try signedIn.requireSuccess("SignInWithBrowser")
            let output = String(decoding: signedIn.standardOutput, as: UTF8.self)
            #expect(output.contains("'email': <'grace@example.com'>"), "\(output)")
            #expect(output.contains("'providers': <'oidc.example'>"), "\(output)")
            #expect(provider.tokenRequests == 1)
            let refused = try await broker.call("SignInWithBrowser", ["{'providerID': <'oidc.example'>, 'clientID': <'x'>}"])
            #expect(refused.standardError.contains("Error.InvalidArgument"), "\(refused.standardError)")
        }

        /// Browser sign-ins are bounded, for a sandboxed app as for any: while an app's flow waits for a browser that never
        /// comes back, its second is refused at once; when the app leaves the bus its flow ends, and the app's next
        /// connection may start one again.
        @Test func aBrowserSignInIsOnePerAppAndEndsWhenTheAppLeaves() async throws {
            let broker = try await BrokerFixture.start()
            let provider = try FakeOAuthProvider(user: ["sub": "grace"])
            defer { provider.stop() }
            // A browser that tells the test it was asked to open the page, and never follows it.
            let directory = broker.harness.root.appendingPathComponent("idle-browser-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let opened = directory.appendingPathComponent("opened")
            try await Subprocess.run("mkfifo", [opened.path]).requireSuccess("mkfifo")
            try "#!/bin/sh\necho opened > '\(opened.path)'\n".write(to: directory.appendingPathComponent("xdg-open"), atomically: true, encoding: .utf8)
            chmod(directory.appendingPathComponent("xdg-open").path, 0o755)
            try await broker.installService(idleTimeout: 120, emulatorHost: broker.address.description, path: directory.path)
            let script = directory.appendingPathComponent("flows.py")
            try """
                import json, sys
                from gi.repository import Gio, GLib
                bus = Gio.bus_get_sync(Gio.BusType.SESSION)
                app = {k: GLib.Variant("s", v) for k, v in json.loads(sys.argv[1]).items()}
                provider = {"providerID": GLib.Variant("s", "oidc.example"), "issuer": GLib.Variant("s", sys.argv[2]),
                            "clientID": GLib.Variant("s", sys.argv[3])}
                arguments = GLib.Variant("(a{sv}sa{sv})", (app, "", provider))
                def call(done=None):
                    name, path = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
                    if done is None:
                        return bus.call_sync(name, path, name, "SignInWithBrowser", arguments, None, Gio.DBusCallFlags.NONE, 30000, None)
                    bus.call(name, path, name, "SignInWithBrowser", arguments, None, Gio.DBusCallFlags.NONE, 300000, None, done, None)
                if sys.argv[4] == "second":
                    call(lambda *_: None)
                    open(sys.argv[5]).read()   # the broker opened the first flow's page: it is registered
                    try:
                        call()
                        print("second answered")
                    except GLib.Error as error:
                        print("second refused: " + error.message)
                else:
                    call(lambda *_: None)
                    open(sys.argv[5]).read()
                    print("started again")
                """.write(to: script, atomically: true, encoding: .utf8)
            let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app), as: UTF8.self)
            func run(_ mode: String) async throws -> Subprocess.Result {
                try await Subprocess.run(broker.harness.scripts.appendingPathComponent("run-as-flatpak").path, [
                    "--share=network", "--ro", directory.path, "com.example.Notes", "/usr/bin/python3", script.path, appJSON, provider.issuer,
                    provider.clientID, mode,
                    opened.path,
                ], limit: .seconds(120))
            }
            // The same app: the second is refused; the process then leaves, its flow waiting.
            let first = try await run("second")
            #expect(first.output.contains("second refused: ") && first.output.contains("already waiting"), "\(first.output)\(first.standardError)")
            // The app left: its flow ended, and its next connection starts another (the browser is asked again).
            let again = try await run("again")
            #expect(again.output.contains("started again"), "\(again.output)\(again.standardError)")
        }

        /// The broker is no way out of a sandbox: an app without the network permission gets no request to a provider it
        /// names, and one with it is told that a discovery failed without what the provider's server said (its status,
        /// its words), which a host process is told.
        @Test func aSandboxedAppReachesNoNetworkThroughTheBroker() async throws {
            let broker = try await BrokerFixture.start()
            let provider = try FakeOAuthProvider(user: ["sub": "grace"])
            defer { provider.stop() }
            let script = broker.harness.root.appendingPathComponent("browser-\(UUID().uuidString.prefix(8)).py")
            try """
                import json, sys
                from gi.repository import Gio, GLib
                bus = Gio.bus_get_sync(Gio.BusType.SESSION)
                app = {k: GLib.Variant("s", v) for k, v in json.loads(sys.argv[1]).items()}
                provider = {"providerID": GLib.Variant("s", "oidc.example"), "issuer": GLib.Variant("s", sys.argv[2]),
                            "clientID": GLib.Variant("s", "client")}
                name, path = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
                try:
                    bus.call_sync(name, path, name, "SignInWithBrowser", GLib.Variant("(a{sv}sa{sv})", (app, "", provider)), None,
                                  Gio.DBusCallFlags.NONE, 60000, None)
                    print("answered")
                except GLib.Error as error:
                    print("refused: " + error.message)
                """.write(to: script, atomically: true, encoding: .utf8)
            func sandboxed(_ share: [String], issuer: String) async throws -> String {
                // Without the network, an app names no emulator either: the broker would refuse that first.
                let app = share.isEmpty ? broker.appWithoutEmulator : broker.app
                let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: app), as: UTF8.self)
                let result = try await Subprocess.run(broker.harness.scripts.appendingPathComponent("run-as-flatpak").path,
                    share + ["--ro", script.path, "com.example.Notes", "/usr/bin/python3", script.path, appJSON, issuer], limit: .seconds(120))
                return result.output + result.standardError
            }
            let networkless = try await sandboxed([], issuer: provider.issuer)
            #expect(networkless.contains("Error.AccessDenied") && networkless.contains("no network permission"), "\(networkless)")
            #expect(provider.requests == 0, "the broker sent no request for an app without the network")
            // With the network: the discovery is sent, its 404 is not told to the app; a host process is told it.
            let missing = provider.issuer + "/missing"
            let hidden = try await sandboxed(["--share=network"], issuer: missing)
            #expect(hidden.contains("refused: ") && hidden.contains("cannot be used for the sign-in"), "\(hidden)")
            #expect(!hidden.contains("404") && !hidden.contains("not_found"), "\(hidden)")
            #expect(provider.requests == 1)
            let told = try await broker.call("SignInWithBrowser", group: "", ["{'providerID': <'oidc.example'>, 'issuer': <'\(missing)'>, 'clientID': <'client'>}"])
            #expect(told.standardError.contains("HTTP 404"), "\(told.standardError)")
        }

        /// Unless the app names an emulator, the broker's requests to a provider a caller names connect only to public
        /// addresses: an issuer on this machine, by address or by name, or on a private or link-local network, is refused
        /// before any request, whoever asks.
        @Test func withoutTheEmulatorTheBrokerReachesNoLocalOrPrivateAddress() async throws {
            let broker = try await BrokerFixture.start()
            let provider = try FakeOAuthProvider(user: ["sub": "grace"])
            defer { provider.stop() }
            for (issuer, why) in [
                (provider.issuer, "loopback"), ("http://localhost:\(provider.port)", "loopback"), ("http://[::1]:\(provider.port)", "loopback"),
                ("https://10.0.0.1", "private"), ("https://169.254.169.254", "link-local"), ("https://[fd00::1]", "private"),
            ] {
                let refused = try await broker.call("SignInWithBrowser", group: "", [
                    "{'providerID': <'oidc.example'>, 'issuer': <'\(issuer)'>, 'clientID': <'client'>}",
                ], app: broker.appWithoutEmulator)
                #expect(refused.standardError.contains("ERROR_INVALID_CONFIGURATION") && refused.standardError.contains(why), "\(issuer): \(refused.standardError)")
            }
            #expect(provider.requests == 0, "no request reached the provider on loopback")
        }

        /// No app keeps another out: a sandboxed app that names seventy Firebase apps in its private scope is served, and
        /// so is every other app after it; one that watches sixteen scopes at once is refused a seventeenth while it holds
        /// them, and other apps are still served meanwhile.
        @Test func oneAppCannotLockOtherAppsOutOfTheBroker() async throws {
            let broker = try await BrokerFixture.start()
            let script = broker.harness.root.appendingPathComponent("scopes-\(UUID().uuidString.prefix(8)).py")
            try """
                import json, sys
                from gi.repository import Gio, GLib
                bus = Gio.bus_get_sync(Gio.BusType.SESSION)
                base = json.loads(sys.argv[1])
                name, path = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
                def call(method, index):
                    app = dict(base, appID="1:42:linux:evil%d" % index)
                    app = {k: GLib.Variant("s", v) for k, v in app.items()}
                    return bus.call_sync(name, path, name, method, GLib.Variant("(a{sv}s)", (app, "")), None, Gio.DBusCallFlags.NONE, 30000, None)
                served = sum(1 for index in range(70) if call("GetUser", index) is not None)
                print("served %d" % served, flush=True)
                for index in range(16):
                    call("Watch", index)
                try:
                    call("Watch", 16)
                    print("seventeenth watched", flush=True)
                except GLib.Error as error:
                    print("seventeenth refused: " + error.message, flush=True)
                sys.stdin.readline()
                """.write(to: script, atomically: true, encoding: .utf8)
            let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: broker.app), as: UTF8.self)
            let evil = try LineChannel(broker.sandbox(appID: "org.evil.App", readOnly: [script.path]) + ["/usr/bin/python3", script.path, appJSON])
            #expect(try await evil.nextLine(within: .seconds(120)) == "served 70", "\(evil.standardError)")
            let refused = try await evil.nextLine(within: .seconds(120))
            #expect(refused.hasPrefix("seventeenth refused: ") && refused.contains("16 apps and scopes"), "\(refused)\(evil.standardError)")
            // While it holds its sixteen: another sandboxed app and a host process, each with an app the broker has not seen.
            let notes = try await broker.python(as: "com.example.Notes", group: "")
            let answer = try await broker.ask(notes, "user")
            #expect(answer.hasPrefix("user {"), "\(answer)")
            #expect(await notes.finish() == 0, "\(notes.standardError)")
            let host = try await broker.busCall(BrokerFixture.name, "/io/github/keyringauth/Broker1", "\(BrokerFixture.name).GetUser", [
                "{'apiKey': <'AIza-other'>, 'appID': <'1:42:linux:other'>, 'projectID': <'demo-keyring-auth'>}", "''",
            ])
            try host.requireSuccess("GetUser of another app")
            #expect(await evil.finish() == 0, "\(evil.standardError)")
        }

        /// A shell script with `gdbus`: a group user, a token, and each kind of bad input answered with
        /// `InvalidArgument` while the broker keeps serving.
        @Test func aShellScriptSignsInAndBadInputIsRefused() async throws {
            let broker = try await BrokerFixture.start()
            let script = broker.packageRoot.appendingPathComponent("Examples/BrokerClients/shell/broker-client.sh").path
            var environment = ProcessInfo.processInfo.environment
            environment["KEYRING_AUTH_APP"] = broker.appArgument
            let run = try await Subprocess.run("bash", [script, BrokerFixture.group], environment: environment)
            try run.requireSuccess("the shell client")
            let output = String(decoding: run.standardOutput, as: UTF8.self)
            #expect(output.contains("signed in as "), "\(output)")
            #expect(output.contains("token of "), "\(output)")

            let bad: [(String, String, [String])] = [
                ("GetUser", BrokerFixture.group, []),
                ("GetUser", "bad group", []),
                ("SignInWithEmail", BrokerFixture.group, ["''", "'x'"]),
                ("SignInWithEmail", BrokerFixture.group, ["'\(String(repeating: "a", count: 5000))@example.com'", "'x'"]),
                ("SignInWithCredential", BrokerFixture.group, ["{'providerID': <'google.com'>}"]),
                ("SignInWithCredential", BrokerFixture.group, ["{'providerID': <42>}"]),
            ]
            for (index, (method, group, arguments)) in bad.enumerated() {
                let app = index == 0 ? "{'apiKey': <'x'>}" : broker.appArgument
                let result = try await broker.busCall(BrokerFixture.name, "/io/github/keyringauth/Broker1", "\(BrokerFixture.name).\(method)",
                    [app, "'\(group)'"] + arguments)
                #expect(result.status != 0)
                #expect(result.standardError.contains("\(BrokerFixture.name).Error.InvalidArgument"),
                    "\(method) \(group): \(result.standardError)")
            }
            let user = try await broker.call("GetUser")
            try user.requireSuccess("GetUser after the refused calls")
            #expect(String(decoding: user.standardOutput, as: UTF8.self).contains("'uid'"))

            // --follow: the script sees the Swift app's sign-out.
            let swiftApp = try broker.swiftApp()
            let follower = try LineChannel(["bash", script, BrokerFixture.group, "--follow"], environment: environment)
            #expect(try await follower.nextLine(within: .seconds(60)).hasPrefix("signed in as "))
            #expect(try await follower.nextLine(within: .seconds(60)).hasPrefix("token of "))
            try swiftApp.signOut()
            #expect(try await follower.nextLine(within: .seconds(60)) == "changed none")
            #expect(await follower.finish() == 0, "\(follower.standardError)")
        }

        /// The broker killed while a sign-in waits on the backend loses nothing stored; the next call activates a new one.
        @Test func theBrokerKilledMidCallLosesNothingAndIsActivatedAgain() async throws {
            let broker = try await BrokerFixture.start()
            try await broker.call("SignInAnonymously").requireSuccess("SignInAnonymously")
            let stored = try await broker.call("GetUser")
            let firstPID = try #require(try await broker.brokerPID())

            // A backend that accepts the connection and never answers, named as the app's emulator: the sign-in waits there.
            let silent = try SilentBackend()
            var silentApp = broker.app
            silentApp["emulatorHost"] = "127.0.0.1:\(silent.port)"
            // An email sign-in always asks the backend (an anonymous one returns the anonymous user already signed in).
            let pending = Task { try await broker.call("SignInWithEmail", ["'ada@example.com'", "'correct horse'"], app: silentApp) }
            try await silent.connected.next(within: .seconds(60))
            let midCallPID = try #require(try await broker.brokerPID())
            #expect(midCallPID == firstPID)
            kill(midCallPID, SIGKILL)
            #expect(try await pending.value.status != 0)

            let after = try await broker.call("GetUser")
            try after.requireSuccess("GetUser from a new broker")
            #expect(after.standardOutput == stored.standardOutput)
            let newPID = try #require(try await broker.brokerPID())
            #expect(newPID != midCallPID)
            silent.stop()
        }

        /// Idle, the broker gives its name back and exits; the next call activates it again.
        @Test func anIdleBrokerExitsAndIsActivatedAgain() async throws {
            let broker = try await BrokerFixture.start(idleTimeout: 1)
            try await broker.call("SignInAnonymously").requireSuccess("SignInAnonymously")
            let pid = try #require(try await broker.brokerPID())
            // Its exit is the event: the process ends by itself.
            let exited = try await Subprocess.run("sh", ["-c", "while kill -0 \(pid) 2>/dev/null; do sleep 0.05; done"], limit: .seconds(60))
            try exited.requireSuccess("waiting for the idle broker to exit")
            let user = try await broker.call("GetUser")
            try user.requireSuccess("GetUser after the idle exit")
            #expect(String(decoding: user.standardOutput, as: UTF8.self).contains("'isAnonymous': <true>"))
        }

        /// Clients that leave while their `Watch` (or `Follow`) is still on its way are never registered: 40 clients, each
        /// identified by a first call, send one for an app of their own and disconnect at once, and the broker, with
        /// nothing left to watch, goes idle and exits (it never did while departed clients stayed registered).
        @Test func clientsThatLeaveMidWatchAreNotKeptAndTheBrokerIdles() async throws {
            let broker = try await BrokerFixture.start(idleTimeout: 1)
            try await broker.call("GetUser").requireSuccess("GetUser")
            let pid = try #require(try await broker.brokerPID())
            let script = """
                import sys
                from gi.repository import Gio, GLib
                for round in range(40):
                    bus = Gio.DBusConnection.new_for_address_sync(Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None),
                        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
                    app = {"apiKey": GLib.Variant("s", sys.argv[1]), "appID": GLib.Variant("s", "1:42:linux:leaver-%d" % round),
                           "projectID": GLib.Variant("s", "demo-keyring-auth")}
                    # Identified first, so that the broker goes straight to making the Auth (or the follow) of the next call.
                    bus.call_sync("io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1", "io.github.keyringauth.Keychain1",
                                  "List", GLib.Variant("(ss)", ("private", "")), None, Gio.DBusCallFlags.NONE, -1, None)
                    method, arguments = ("Watch", GLib.Variant("(a{sv}s)", (app, ""))) if round % 2 == 0 else \
                        ("Follow", GLib.Variant("(s)", ("",)))
                    interface = "io.github.keyringauth.Broker1" if method == "Watch" else "io.github.keyringauth.Keychain1"
                    bus.call("io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1", interface, method,
                             arguments, None, Gio.DBusCallFlags.NONE, -1, None, None, None)
                    bus.flush_sync(None)
                    bus.close_sync(None)
                """
            try await Subprocess.run("/usr/bin/python3", ["-c", script, broker.app["apiKey"]!]).requireSuccess("the leaving clients")
            // The broker's exit is the event: with no client left registered, it idles.
            let exited = try await Subprocess.run("sh", ["-c", "while kill -0 \(pid) 2>/dev/null; do sleep 0.05; done"], limit: .seconds(60))
            try exited.requireSuccess("waiting for the broker to go idle and exit")
        }

        /// Fifty concurrent `GetIDToken(…, true)` from one client send one refresh request: the refresh is held at the
        /// backend until the broker has said that the other 49 joined it.
        @Test func concurrentForcedRefreshesSendOneRequest() async throws {
            let fixture = try await BrokerFixture.start()
            let forwarder = try GatedForwarder(to: fixture.address)
            defer { forwarder.stop() }
            // The app names the forwarder as its emulator, for every call.
            var app = fixture.app
            app["emulatorHost"] = "127.0.0.1:\(forwarder.port)"
            let broker = try LineChannel(["sh", "-c", "exec \"$0\" --verbose --idle-timeout 0 2>&1", try Harness.product("keyring-auth-broker")])
            _ = try await broker.nextLine(within: .seconds(60)) { $0.contains("Serving") }
            try await fixture.call("SignInAnonymously", app: app).requireSuccess("SignInAnonymously")
            let before = fixture.emulator.receivedRequests.filter { $0.operation == "token" }.count

            let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: app), as: UTF8.self)
            let burst = try LineChannel(["/usr/bin/python3", "-c", Self.fiftyForcedRefreshes, appJSON, BrokerFixture.group])
            try await forwarder.refreshes.next(within: .seconds(60))
            for _ in 0..<49 { _ = try await broker.nextLine(within: .seconds(60)) { $0.contains("Joined the token refresh under way") } }
            forwarder.open()
            #expect(try await burst.nextLine(within: .seconds(60)) == "tokens=1 errors=0")
            #expect(fixture.emulator.receivedRequests.filter { $0.operation == "token" }.count - before == 1)
            #expect(forwarder.refreshes.queued.isEmpty, "no other refresh reached the backend")
            broker.child.send(SIGTERM)
        }

        /// The broker's `Auth` and three Swift apps of the group, each refreshing ahead of expiry as apps do, refresh
        /// about once per expiry between them: five-second tokens, refreshed 0.5 to 2.5 s before expiry.
        @Test func theBrokerAndSwiftAppsRefreshAboutOncePerExpiryBetweenThem() async throws {
            let fixture = try await BrokerFixture.start(tokenLifetime: .seconds(5))
            let policy = TokenRefreshPolicy(headStart: .milliseconds(500), spread: .seconds(2))
            let broker = try LineChannel(
                [try Harness.product("keyring-auth-broker"), "--idle-timeout", "0", "--refresh-ahead", "0.5", "--refresh-spread", "2"])
            try await Subprocess.run("gdbus", ["wait", "--session", "--timeout", "60", BrokerFixture.name]).requireSuccess("gdbus wait")
            let apps = try (0..<3).map { try fixture.swiftApp("swift-app-\($0)", tokenRefresh: policy) }
            let tokens = ListenerLog()
            let handle = apps[0].addIDTokenDidChangeListener { _, user in tokens.record(user) }
            defer { apps[0].removeIDTokenDidChangeListener(handle) }
            #expect(try await tokens.next() == nil)
            let signedIn = try await fixture.call("SignInAnonymously")
            try signedIn.requireSuccess("SignInAnonymously")
            let uid = try #require(try await tokens.next { $0 != nil })
            let before = fixture.emulator.receivedRequests.filter { $0.operation == "token" }.count

            // Each expiry, one of the four refreshes and the others get its token: app 0 is told once per round.
            let rounds = 3
            for _ in 0..<rounds { #expect(try await tokens.next(within: .seconds(60)) == uid) }
            let refreshes = fixture.emulator.receivedRequests.filter { $0.operation == "token" }.count - before
            #expect(refreshes >= rounds)
            // Uncoordinated, each of the four would refresh each expiry (12); two firing within one refresh's round trip of
            // each other may both refresh on a loaded machine, as among Swift apps alone: at most half of that.
            #expect(refreshes <= 4 * rounds / 2, "\(refreshes) refreshes for \(rounds) expiries of 4 refreshing parties")
            #expect(apps.allSatisfy { $0.currentUser?.uid == uid }, "nobody was signed out on the way")
            broker.child.send(SIGTERM)
            withExtendedLifetime(apps) {}
        }

        /// Fifty `GetIDToken(app, group, true)` sent at once on one connection (Gio, asynchronously); prints how many
        /// distinct tokens and errors came back.
        static let fiftyForcedRefreshes = """
            import json, sys
            from gi.repository import Gio, GLib
            NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
            app = {key: GLib.Variant("s", value) for key, value in json.loads(sys.argv[1]).items()}
            bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            loop, tokens, errors = GLib.MainLoop(), [], []
            def done(connection, result, _):
                try:
                    tokens.append(connection.call_finish(result).unpack()[0])
                except GLib.Error as error:
                    errors.append(error.message)
                if len(tokens) + len(errors) == 50:
                    loop.quit()
            for _ in range(50):
                bus.call(NAME, PATH, NAME, "GetIDToken", GLib.Variant("(a{sv}sb)", (app, sys.argv[2], True)), None,
                         Gio.DBusCallFlags.NONE, 120000, None, done, None)
            loop.run()
            print("tokens=%d errors=%d" % (len(set(tokens)), len(errors)), flush=True)
            """

        /// While the broker has the keyring open, the provider locks its collection and unlocks it, then restarts
        /// (KeePassXC withdraws the collection and offers it anew, with `CollectionDeleted` and `CollectionCreated`, the
        /// latter as it starts, before the bus has given libsecret the service's properties again): the broker that served
        /// the app before still runs and serves it after, with the user it kept.
        @Test func theBrokerOutlivesItsProviderLockingAndRestarting() async throws {
            let broker = try await BrokerFixture.start()
            try await broker.call("SignInAnonymously").requireSuccess("SignInAnonymously")
            let pid = try #require(try await broker.brokerPID())

            try await broker.harness.lockLoginCollection()
            var unlocked = false
            defer { if !unlocked { try? broker.harness.unlockLoginCollection() } }
            try broker.harness.unlockLoginCollection()
            unlocked = true
            try await broker.harness.restartProvider()

            let user = try await broker.call("GetUser")
            #expect(user.status == 0 && user.output.contains("'isAnonymous': <true>"), "\(user.output)\(user.standardError)")
            #expect(try await broker.brokerPID() == pid, "the broker that had the keyring open still runs")
            #expect(kill(pid, 0) == 0)
        }
    }
}

/// A backend that accepts connections and never answers; `connected` gets one event per connection.
final class SilentBackend: Sendable {
    let port: Int
    let connected = Mailbox<Void>()
    private let listener: Int32

    init() throws {
        (listener, port) = try RawTCP.silentListener()
        let (listener, connected) = (listener, connected)
        try OwnThread.detach(name: "silent-accept") {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                connected.post(())
            }
        }
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }
}
