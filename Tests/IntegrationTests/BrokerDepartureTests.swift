import Foundation
import KeyringTestSupport
import Testing

extension KeyringTests.Broker {
    /// What a client makes the broker hold ends when it leaves, however it leaves, and the broker itself ends with its
    /// session bus.
    @Suite struct Departures {
        /// The broker as `dbus-run-session` leaves it: activated on a bus of its own, it serves a call that reaches
        /// the keychain, then the bus daemon dies; the broker exits within seconds, not at its idle timeout (two minutes).
        @Test func theBrokerExitsWhenItsBusGoesAwayAfterACallThatReachedTheKeychain() async throws {
            let (bus, broker) = try await Self.brokerThatReadTheKeychain(idleTimeout: 120)
            defer { bus.stop() }
            await bus.kill()
            // Generous, against a broker that would wait for its two-minute idle timeout or for ever.
            let status = await broker.finish(within: .seconds(20))
            #expect(status == 0, "the broker exited by itself: \(broker.standardError)")
            #expect(broker.standardError.contains("the session bus went away"), "\(broker.standardError)")
        }

        /// Idle after a call that reached the keychain, the broker gives its name back and exits at its idle timeout.
        @Test func theIdleTimeoutHoldsAfterACallThatReachedTheKeychain() async throws {
            let (bus, broker) = try await Self.brokerThatReadTheKeychain(idleTimeout: 1)
            defer { bus.stop() }
            #expect(await broker.finish(within: .seconds(30)) == 0, "\(broker.standardError)")
            let owner = try await Subprocess.run("gdbus", [
                "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.NameHasOwner", BrokerFixture.name,
            ], environment: bus.environment)
            #expect(owner.output.contains("false"), "the name was given back: \(owner.output)")
        }

        /// A private bus with gnome-keyring, and the broker started on it, which has served `GetUser` of a group (a
        /// read of the keychain).
        private static func brokerThatReadTheKeychain(idleTimeout: Int) async throws -> (PrivateBus, LineChannel) {
            let bus = try await PrivateBus(harness: try Harness.require())
            let broker = try LineChannel(
                [try Harness.product("keyring-auth-broker"), "--idle-timeout", "\(idleTimeout)"], environment: bus.environment)
            try await Subprocess.run("gdbus", ["wait", "--session", "--timeout", "20", BrokerFixture.name], environment: bus.environment)
                .requireSuccess("the broker taking its name")
            let app = "{'apiKey': <'AIza-lifetime'>, 'appID': <'1:42:linux:lifetime'>, 'projectID': <'demo-keyring-auth'>}"
            try await Subprocess.run("gdbus", [
                "call", "--session", "--dest", BrokerFixture.name, "--object-path", "/io/github/keyringauth/Broker1",
                "--method", "\(BrokerFixture.name).GetUser", app, BrokerFixture.group,
            ], environment: bus.environment).requireSuccess("GetUser, which reads the group's user from the keychain")
            return (bus, broker)
        }

        /// Twenty browser sign-ins of one sandboxed app whose connections leave at once start no flow that outlives
        /// them: the app's own sign-in, sent next, is served (not refused as "already waiting"). The stand-in browser
        /// follows no page until the test says so, so a flow kept for a departed client would still be waiting.
        @Test func callsWhoseClientsLeaveAtOnceLeaveNothingThatBlocksTheAppsNextCall() async throws {
            let broker = try await BrokerFixture.start()
            let (browserPath, _) = try FakeBrowser.make(email: "grace@contoso.example")
            let gated = broker.harness.root.appendingPathComponent("gated-browser-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: gated, withIntermediateDirectories: true)
            let (opened, go) = (gated.appendingPathComponent("opened"), gated.appendingPathComponent("go"))
            try """
                #!/bin/sh
                echo "$1" >> '\(opened.path)'
                while [ ! -e '\(go.path)' ]; do sleep 0.05; done
                exec '\(browserPath)/xdg-open' "$1"
                """.write(to: gated.appendingPathComponent("xdg-open"), atomically: true, encoding: .utf8)
            chmod(gated.appendingPathComponent("xdg-open").path, 0o755)
            try await broker.stopBroker()
            try await broker.installService(idleTimeout: 120, emulatorHost: broker.address.description, path: gated.path)

            let leaving = try await FloodingApp(broker, as: "com.example.Notes", connections: 20)
            #expect(try await leaving.ask(#"call SignInWithBrowser - {"providerID": "microsoft.com"}"#) == "sent 20")
            #expect(try await leaving.ask("close") == "closed")
            let openedBefore = Self.lines(of: opened)

            let app = try await BrokerDriver(broker, as: "com.example.Notes")
            let signIn = Task { () throws -> (providers: String?, answer: String) in
                let answer = try await app.call("SignInWithBrowser", "a{sv}", [["providerID": "microsoft.com"]])
                return (((answer["reply"] as? [Any])?.first as? [String: Any])?["providers"] as? String, "\(answer)")
            }
            // The app's own flow opens its page (a refusal answers first); then the browser may follow every page.
            let deadline = ContinuousClock.now + .seconds(60)
            while Self.lines(of: opened) <= openedBefore, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(FileManager.default.createFile(atPath: go.path, contents: nil))
            let served = try await signIn.value
            #expect(served.providers == "microsoft.com", "the app's own sign-in is served: \(served.answer)")
            #expect(await app.finish() == 0)
            _ = await leaving.finish()
        }

        private static func lines(of file: URL) -> Int {
            ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").count
        }

        /// A sandboxed app's new items, stored at once from several connections, are counted one at a time: of 40
        /// `Keychain1.Store` calls of new keys in its private scope, one from each of 40 connections at once, 8 are kept
        /// (its share there), as when they come one after another.
        @Test func concurrentStoresOfOneAppCannotPassItsShare() async throws {
            let broker = try await BrokerFixture.start()
            // An app of this test's own, whose private scope starts empty whatever earlier runs left.
            let appID = "org.evil.Racer" + String(UUID().uuidString.filter(\.isLetter).prefix(6))
            let racer = try await FloodingApp(broker, as: appID, connections: 40)
            // Each connection known to the broker first, so that the stores meet it together.
            #expect(try await racer.ask("call GetUser -") == "sent 40")
            #expect(try await racer.results(40).accepted == 40)
            #expect(try await racer.ask("storeall - 1 2048") == "sent 40")
            let stored = try await racer.results(40)
            #expect(stored.accepted == 8, "\(stored)")
            #expect(stored.refusals.allSatisfy { $0.contains("8 items in its private scope") }, "\(stored.refusals)")
            #expect(try await racer.ask("count -") == "8", "the keychain holds the app's share, no more")
            #expect(await racer.finish() == 0, "\(racer.channel.standardError)")
        }

        /// A held sign-in whose `CommitSignIn` meets a locked keychain is kept: the commit fails with the keychain's
        /// error, and once the keychain is unlocked the same handle commits it. Where the provider refuses an unlock at
        /// once (gnome-keyring without a prompter): KWallet unlocks by itself, so there is no failure to meet, and
        /// KeePassXC never answers its prompt, so the commit would wait out the broker's one-minute unlock limit first.
        @Test func aCommitThatMeetsALockedKeychainKeepsTheHeldSignIn() async throws {
            let broker = try await BrokerFixture.start()
            guard broker.harness.provider.unlockPrompt == .refusedAtOnce else { return }
            var app = broker.app
            app["holdSignIn"] = "true"
            let client = try await BrokerDriver(broker, app: app)
            let held = try await client.dictionary("SignInAnonymously")
            let handle = try #require(held["heldSignIn"] as? String, "\(held)")

            try await broker.harness.lockLoginCollection()
            var unlocked = false
            defer { if !unlocked { try? broker.harness.unlockLoginCollection() } }
            let refused = try await client.call("CommitSignIn", "s", [handle])
            #expect(refused["error"] as? String == "KeychainUnavailable", "\(refused)")
            try broker.harness.unlockLoginCollection()
            unlocked = true

            let committed = try await client.dictionary("CommitSignIn", "s", [handle])
            #expect(committed["uid"] as? String == held["uid"] as? String, "\(committed)")
            #expect(try await client.call("CommitSignIn", "s", [handle])["error"] as? String == "InvalidArgument", "a handle commits once")
            #expect(await client.finish() == 0)
        }
    }
}
