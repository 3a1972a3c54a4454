import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import SystemSupport
import Testing

extension KeyringTests {
    /// A Swift app that links KeyringAuth (`keyring-auth` itself) run as Flatpak runs `com.example.Notes`
    /// (`dbus/run-as-flatpak`: bubblewrap, xdg-dbus-proxy, its own `~/.var/app` folder), with no permission but
    /// the broker's talk-name: its own sign-in in its portal keyring (the real xdg-desktop-portal with
    /// gnome-keyring's Secret backend), its group through the broker, beside host apps and a Python client.
    @Suite struct SandboxedSwiftApp {
        static let notes = "com.example.Notes"

        /// The Firebase app every sandboxed app of one test names, its own: stored items of other tests never match.
        let firebaseAppID = "1:42:linux:notes-\(UUID().uuidString.prefix(8))"

        /// `keyring-auth ARGUMENTS` as the Flatpak app `appID`, with the network (the emulator is on loopback).
        func sandboxed(
            _ broker: BrokerFixture, as appID: String = notes, _ arguments: [String], input: String = ""
        ) async throws -> Subprocess.Result {
            try await Subprocess.run(
                broker.harness.scripts.appendingPathComponent("run-as-flatpak").path,
                try Self.sandbox(appID) + arguments + (arguments.first == "doctor" ? [] : identity(broker)), input: Data(input.utf8),
                limit: .seconds(120))
        }

        /// `run-as-flatpak`'s arguments up to the CLI's own.
        static func sandbox(_ appID: String) throws -> [String] {
            let cli = try Harness.product("keyring-auth")
            return ["--swift-runtime", "--share=network", "--ro", URL(fileURLWithPath: cli).deletingLastPathComponent().path, appID, cli]
        }

        func identity(_ broker: BrokerFixture) -> [String] {
            ["--api-key", broker.app["apiKey"]!, "--app-id", firebaseAppID]
        }

        /// Runs `body` with the real desktop portal on the harness's bus (with gnome-keyring's Secret backend, or none).
        func withPortal(secret: Bool = true, _ body: () async throws -> Void) async throws {
            let scripts = try Harness.require().scripts
            try await Subprocess.run(scripts.appendingPathComponent("start-portal").path, secret ? [] : ["--no-secret"], limit: .seconds(60))
                .requireSuccess("dbus/start-portal")
            do {
                try await body()
            } catch {
                _ = try? await Subprocess.run(scripts.appendingPathComponent("stop-portal").path, [])
                throw error
            }
            try await Subprocess.run(scripts.appendingPathComponent("stop-portal").path, []).requireSuccess("dbus/stop-portal")
        }

        /// Takes the broker off the bus and its service file away: as on a host where it is not installed.
        func uninstallBroker(_ broker: BrokerFixture) async throws {
            let services = URL(fileURLWithPath: ProcessInfo.processInfo.environment["KEYRING_AUTH_HARNESS_SERVICES"]!)
            try? FileManager.default.removeItem(at: services.appendingPathComponent("\(BrokerFixture.name).service"))
            try await broker.busCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig", [])
                .requireSuccess("ReloadConfig")
            try await broker.stopBroker()
        }

        /// Notes's `keyring-auth watch --group` running in its sandbox.
        func watch(_ broker: BrokerFixture) throws -> LineChannel {
            try LineChannel(
                [broker.harness.scripts.appendingPathComponent("run-as-flatpak").path] + (try Self.sandbox(Self.notes))
                    + ["watch", "--group", BrokerFixture.group, "--json"] + identity(broker))
        }

        /// The uid of the user in the next line `watch` printed (`nil`: nobody).
        static func nextWatched(_ watcher: LineChannel) async throws -> String? {
            let line = try await watcher.nextLine(within: .seconds(60))
            let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (event?["user"] as? [String: Any])?["uid"] as? String
        }

        /// The user JSON a command printed.
        static func uid(_ result: Subprocess.Result) throws -> String? {
            let object = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any]
            return object?["uid"] as? String
        }

        /// The harness's keyring, as a host program reads it: every item of KeyringAuth's schema.
        static func hostItems() throws -> [KeychainItemInfo] {
            try SecretServiceStore().items(in: .all)
        }

        @Test(.enabled(if: Harness.providerHasSecretPortal, "the Secret portal backend is gnome-keyring's"))
        func theAppsOwnSignInNeedsNoPermissionAndSurvivesARestartWithNoBroker() async throws {
            let broker = try await BrokerFixture.start()
            try await uninstallBroker(broker)
            try await withPortal {
                let signedIn = try await sandboxed(broker, ["sign-in", "--anonymous", "--private", "--emulator", broker.address.description, "--json"])
                #expect(signedIn.status == 0, "\(signedIn.standardError)")
                let uid = try #require(try Self.uid(signedIn))
                // A restart of the app: its own sign-in is read back from its portal keyring.
                let shown = try await sandboxed(broker, ["show", "--private", "--json"])
                #expect(try shown.status == 0 && Self.uid(shown) == uid, "\(shown.standardError)")
                // It lives in the app's data folder, encrypted, and the host's keyring holds nothing of it.
                let home = ProcessInfo.processInfo.environment["HOME"]!
                let file = "\(home)/.var/app/\(Self.notes)/data/keyrings/default.keyring"
                let contents = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(contents.count > 0 && contents.range(of: Data(uid.utf8)) == nil, "the keyring file is encrypted")
                // The store made the file with few key-derivation iterations, and libsecret kept them as it wrote the user.
                #expect(PortalKeyringFile.recordedIterationCount(atPath: file) == PortalKeyringFile.iterationCount)
                #expect(try Self.hostItems().allSatisfy { !$0.key.service.hasSuffix(firebaseAppID) }, "no item of it on the host")
                // Its group needs the broker, which is not installed: Firebase's keychain error names it.
                let group = try await sandboxed(broker, ["sign-in", "--anonymous", "--group", BrokerFixture.group, "--emulator", broker.address.description])
                #expect(group.status == 4, "\(group.standardError)")
                #expect(group.standardError.contains("install keyring-auth-broker") && group.standardError.contains("io.github.keyringauth.Broker1"))
                // doctor says which of the three it reaches, and never advises the Secret Service's permission.
                let doctor = try await sandboxed(broker, ["doctor"])
                #expect(doctor.status == 4)
                #expect(doctor.output.contains("ok   portal: the Secret portal answers"), "\(doctor.output)")
                #expect(doctor.output.contains("FAIL broker:") && doctor.output.contains("ok   probe:"), "\(doctor.output)")
                #expect(!doctor.output.contains("talk-name=org.freedesktop.secrets"), "\(doctor.output)")
            }
        }

        /// A portal keyring file that libsecret would abort on (its salt's recorded size is not the salt's) or read as
        /// empty (cut short): the app is told which file and what to do, and the file is left as it is.
        @Test(.enabled(if: Harness.providerHasSecretPortal, "the Secret portal backend is gnome-keyring's"))
        func aDamagedPortalKeyringFileIsReportedAndLeftAsItIs() async throws {
            let broker = try await BrokerFixture.start()
            let appID = "com.example.Damaged"
            let folder = "\(ProcessInfo.processInfo.environment["HOME"]!)/.var/app/\(appID)/data/keyrings"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let file = "\(folder)/default.keyring"
            defer { try? FileManager.default.removeItem(atPath: file) }
            var wrongSaltSize = PortalKeyringFile.emptyKeyring(salt: Array(repeating: 7, count: 32), modified: Date())
            wrongSaltSize[18] = 31
            for (damaged, reason) in [(wrongSaltSize, "it records a salt of 31 bytes but holds 32"), (wrongSaltSize.dropLast(3), "it is cut short")] {
                try damaged.write(to: URL(fileURLWithPath: file))
                try await withPortal {
                    let shown = try await sandboxed(broker, as: appID, ["show", "--private", "--json"])
                    #expect(shown.status == 1, "\(shown.standardError)")
                    #expect(shown.standardError.contains("\(file) cannot be opened: \(reason)"), "\(shown.standardError)")
                    #expect(!shown.standardError.contains("Program crashed"), "\(shown.standardError)")
                }
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == damaged, "left as it is")
            }
        }

        /// The README's walkthrough with the sandboxed Swift app in it: Notes (sandboxed, through the broker), a host
        /// Swift app and a Python client of the group share one sign-in, live, both ways: Notes's sign-in and sign-out
        /// reach the others as they happen, and theirs reach Notes's running `watch` (the broker's `ItemChanged`).
        @Test func aSandboxedSwiftAppSharesItsGroupLiveWithHostAppsAndAPythonClient() async throws {
            let broker = try await BrokerFixture.start()
            let watcher = try watch(broker)
            func nextWatched() async throws -> String? { try await Self.nextWatched(watcher) }
            #expect(try await nextWatched() == nil, "nobody is signed in yet")
            let python = try await broker.python(as: "com.example.Other")
            #expect(try await broker.ask(python, "watch") == "ok")
            let swiftApp = try broker.swiftApp()
            let log = ListenerLog()
            let handle = swiftApp.addStateDidChangeListener { _, user in log.record(user) }
            defer { swiftApp.removeStateDidChangeListener(handle) }
            #expect(try await log.next() == nil)
            func notesUser() async throws -> String? {
                let shown = try await sandboxed(broker, ["show", "--group", BrokerFixture.group, "--json"])
                return shown.status == 3 ? nil : try Self.uid(shown)
            }

            // The host Swift app signs in: the Python client sees it live, and Notes reads it.
            let ada = try await swiftApp.createUser(withEmail: "ada@example.com", password: "correct horse").user
            #expect(try await broker.nextChange(of: python)["uid"] as? String == ada.uid)
            #expect(try await log.next { $0 != nil } == ada.uid)
            #expect(try await nextWatched() == ada.uid)
            #expect(try await notesUser() == ada.uid)

            // The sandboxed Swift app signs out: the host app and the Python client see it live.
            let signedOut = try await sandboxed(broker, ["sign-out", "--group", BrokerFixture.group])
            #expect(signedOut.status == 0, "\(signedOut.standardError)")
            #expect(try await log.next { $0 == nil } == nil)
            #expect(try await broker.nextChange(of: python).isEmpty)
            #expect(try await nextWatched() == nil)

            // The sandboxed Swift app signs in: the others see it live.
            let signedIn = try await sandboxed(broker, ["sign-in", "--anonymous", "--group", BrokerFixture.group, "--emulator", broker.address.description, "--json"])
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let uid = try #require(try Self.uid(signedIn))
            #expect(try await log.next { $0 != nil } == uid)
            #expect(try await broker.nextChange(of: python)["uid"] as? String == uid)
            #expect(try await notesUser() == uid)
            #expect(try await nextWatched() == uid)

            // The Python client signs out: Notes's watch sees it.
            #expect(try await broker.ask(python, "sign-out") == "ok")
            #expect(try await nextWatched() == nil)

            #expect(try await broker.ask(python, "unwatch") == "ok")
            #expect(await python.finish() == 0, "\(python.standardError)")
        }

        /// A sandboxed app's running `watch` keeps following its group when the broker is killed: it follows again, which
        /// activates a new broker, and sees a host app's sign-in made after the kill.
        @Test func aRunningWatchFollowsAgainWhenTheBrokerIsKilled() async throws {
            let broker = try await BrokerFixture.start()
            let watcher = try watch(broker)
            func nextWatched() async throws -> String? { try await Self.nextWatched(watcher) }
            #expect(try await nextWatched() == nil)
            let first = try #require(try await broker.brokerPID())
            try await broker.stopBroker()
            let swiftApp = try broker.swiftApp()
            let uid = try await swiftApp.signInAnonymously().user.uid
            #expect(try await nextWatched() == uid)
            #expect(try await broker.brokerPID() != first, "a new broker serves the follow")
        }

        /// More of `Auth` in the sandbox, on the group's item through the broker: linking an email and password to the
        /// anonymous user, a forced token refresh, signing out, and signing in again with the password; a host Swift app
        /// of the group follows each change live.
        @Test func linkingRefreshingAndPasswordSignInWorkSandboxed() async throws {
            let broker = try await BrokerFixture.start()
            let emulator = broker.address.description
            let swiftApp = try broker.swiftApp()
            let log = ListenerLog()
            let handle = swiftApp.addIDTokenDidChangeListener { _, user in log.record(user) }
            defer { swiftApp.removeIDTokenDidChangeListener(handle) }
            #expect(try await log.next() == nil)

            let anonymous = try await sandboxed(broker, ["sign-in", "--anonymous", "--group", BrokerFixture.group, "--emulator", emulator, "--json"])
            let uid = try #require(try Self.uid(anonymous), "\(anonymous.standardError)")
            #expect(try await log.next { $0 != nil } == uid)

            let email = "notes-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let linked = try await sandboxed(broker, ["link", "--email", email, "--password-stdin", "--json", "--emulator", emulator], input: "correct horse\n")
            #expect(linked.status == 0, "\(linked.standardError)")
            _ = try await log.next { $0 != nil }
            #expect(swiftApp.currentUser?.uid == uid && swiftApp.currentUser?.email == email, "the host app follows the linked user")

            let token = try await sandboxed(broker, ["token", "--group", BrokerFixture.group, "--force-refresh", "--emulator", emulator])
            #expect(token.status == 0 && token.output.split(separator: ".").count == 3, "\(token.standardError)")

            #expect(try await sandboxed(broker, ["sign-out", "--group", BrokerFixture.group]).status == 0)
            #expect(try await log.next { $0 == nil } == nil)
            let again = try await sandboxed(
                broker, ["sign-in", "--email", email, "--password-stdin", "--group", BrokerFixture.group, "--emulator", emulator, "--json"],
                input: "correct horse\n")
            #expect(try Self.uid(again) == uid, "\(again.standardError)")
            #expect(try await log.next { $0 != nil } == uid)
        }

        /// Second factors in the sandbox, through the broker: Notes signs in with a password, enrolls an authenticator
        /// (`mfa enroll-totp`, the code computed from the secret it printed), signs out, and signs in again with the
        /// password and a code; the host Swift app of the group sees the enrolled factor and the sign-in.
        @Test func aSecondFactorIsEnrolledAndUsedSandboxed() async throws {
            let broker = try await BrokerFixture.start()
            let emulator = broker.address.description
            let email = "mfa-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try broker.emulator.importAccounts(Data(#"""
                {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "notes-mfa", "email": "\#(email)", "emailVerified": true, "rawPassword": "second-factor"}]}
                """#.utf8))
            let signIn = ["sign-in", "--email", email, "--password-stdin", "--group", BrokerFixture.group, "--emulator", emulator]
            let first = try await sandboxed(broker, signIn, input: "second-factor\n")
            try #require(first.status == 0, "\(first.standardError)")

            let enrollment = try LineChannel(
                [broker.harness.scripts.appendingPathComponent("run-as-flatpak").path] + (try Self.sandbox(Self.notes))
                    + ["mfa", "enroll-totp", "--display-name", "Phone", "--group", BrokerFixture.group, "--emulator", emulator] + identity(broker))
            let uri = try await enrollment.nextLine(within: .seconds(60))
            let secret = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value, "\(uri)")
            let enrolledAt = Date()
            enrollment.send(TOTP.code(base32Secret: secret, at: enrolledAt) ?? "-")
            #expect(await enrollment.finish(within: .seconds(60)) == 0, "\(enrollment.standardError)")
            let swiftApp = try broker.swiftApp()
            #expect(swiftApp.currentUser?.uid == "notes-mfa" && swiftApp.currentUser?.multiFactor.enrolledFactors.count == 1)
            let factorUID = try #require(swiftApp.currentUser?.multiFactor.enrolledFactors.first?.uid)

            #expect(try await sandboxed(broker, ["sign-out", "--group", BrokerFixture.group]).status == 0)
            let noCode = try await sandboxed(broker, signIn, input: "second-factor\n")
            #expect(noCode.status == 2 && noCode.standardError.contains("authenticator app"), "the password alone: \(noCode.standardError)")
            // A code of a later time step than the enrollment's (a code is accepted once), within the emulator's window.
            let code = try #require(TOTP.code(base32Secret: secret, at: max(enrolledAt.addingTimeInterval(30), Date().addingTimeInterval(-29))))
            let signedIn = try await sandboxed(broker, signIn + ["--factor", factorUID], input: "second-factor\n\(code)\n")
            #expect(signedIn.status == 0, "\(signedIn.standardError)")
            let log = ListenerLog()
            let handle = swiftApp.addStateDidChangeListener { _, user in log.record(user) }
            defer { swiftApp.removeStateDidChangeListener(handle) }
            #expect(try await log.next { $0 != nil } == "notes-mfa", "the host app follows the sign-in")
        }

        /// `org.evil.App`, sandboxed, is refused Notes's group by the item interface, and reaches Notes's private user
        /// by no path: not by naming Notes's Firebase app, not through the broker's items, not its portal keyring.
        @Test func anotherAppIsRefusedTheGroupAndCannotReachNotesPrivateUser() async throws {
            let broker = try await BrokerFixture.start()
            try await withPortal(secret: false) {
                // Without a Secret portal backend, Notes's own sign-in goes through the broker's private scope.
                let notes = try await sandboxed(broker, ["sign-in", "--anonymous", "--private", "--emulator", broker.address.description, "--json"])
                #expect(notes.status == 0, "\(notes.standardError)")
                let uid = try #require(try Self.uid(notes))
                #expect(try Self.hostItems().contains { $0.key.account.hasPrefix("firebase_auth_1_flatpak:\(Self.notes):") },
                        "kept by the broker for Notes's verified app ID")
                let shown = try await sandboxed(broker, ["show", "--private", "--json"])
                #expect(try shown.status == 0 && Self.uid(shown) == uid, "\(shown.standardError)")
                // doctor: no portal keyring, but the broker serves the app's own items and its groups: healthy.
                let doctor = try await sandboxed(broker, ["doctor"])
                #expect(doctor.status == 0, "\(doctor.output)")
                #expect(doctor.output.contains("ok   portal: no portal keyring") && doctor.output.contains("ok   broker:")
                        && doctor.output.contains("ok   probe:"), "\(doctor.output)")
                // The evil app names Notes's Firebase app: its private scope is its own, empty.
                let evilPrivate = try await sandboxed(broker, as: "org.evil.App", ["show", "--private"])
                #expect(evilPrivate.status == 3, "\(evilPrivate.standardError)")
                let evilGroup = try await sandboxed(broker, as: "org.evil.App", ["sign-in", "--anonymous", "--group", BrokerFixture.group,
                                                                              "--emulator", broker.address.description])
                #expect(evilGroup.status == 4 && evilGroup.standardError.contains("may not use the access group"), "\(evilGroup.standardError)")
                // The item interface itself, called by hand: another app's key, and an item that is not Auth's, are refused.
                // The item interface itself, called by hand: every method on Notes's group is refused.
                func evilCall(_ method: String, _ arguments: [String]) async throws -> Subprocess.Result {
                    try await Subprocess.run(broker.harness.scripts.appendingPathComponent("run-as-flatpak").path, [
                        "org.evil.App", "gdbus", "call", "--session", "--dest", BrokerFixture.name, "--object-path", "/io/github/keyringauth/Broker1",
                        "--method", "io.github.keyringauth.Keychain1.\(method)",
                    ] + arguments)
                }
                let (group, apiKey, account) = (BrokerFixture.group, broker.app["apiKey"]!, "firebase_auth_firebase_user")
                let refusals: [(String, [String])] = [
                    ("Lookup", [group, apiKey, account]), ("Store", [group, apiKey, account, "planted", "[byte 0x7b, 0x7d]"]),
                    ("Remove", [group, apiKey, account]), ("List", ["group", group]), ("RemoveAll", [group]), ("Follow", [group]),
                ]
                for (method, arguments) in refusals {
                    let refused = try await evilCall(method, arguments)
                    #expect(refused.standardError.contains("Error.AccessDenied"), "\(method): \(refused.standardError)")
                }
                // Listing everything it may use shows no item of Notes's, and an item that is not Auth's is refused.
                let all = try await evilCall("List", ["all", "''"])
                #expect(all.status == 0 && !all.output.contains(group) && !all.output.contains("com.example.Notes"), "\(all.output)")
                let foreign = try await evilCall("Lookup", ["''", "some-service", "some-account"])
                #expect(foreign.standardError.contains("Error.InvalidArgument"), "\(foreign.standardError)")
                let after = try await sandboxed(broker, ["show", "--private", "--json"])
                #expect(try Self.uid(after) == uid, "Notes's user is as it was")
            }
        }

        /// Where the portal has no Secret backend and no broker is installed, the app's own sign-in fails with a
        /// message that names both, and stores nothing elsewhere.
        @Test func withNeitherThePortalNorTheBrokerTheAppIsToldAndNothingIsStored() async throws {
            let broker = try await BrokerFixture.start()
            try await uninstallBroker(broker)
            try await withPortal(secret: false) {
                let before = try Self.hostItems()
                let signIn = try await sandboxed(broker, as: "com.example.Drafts", ["sign-in", "--anonymous", "--private", "--emulator", broker.address.description])
                #expect(signIn.status == 4, "\(signIn.standardError)")
                #expect(signIn.standardError.contains("Secret portal") && signIn.standardError.contains("install keyring-auth-broker"),
                        "\(signIn.standardError)")
                #expect(try Self.hostItems() == before)
                let home = ProcessInfo.processInfo.environment["HOME"]!
                #expect(!FileManager.default.fileExists(atPath: "\(home)/.var/app/com.example.Drafts/data/keyrings/default.keyring"))
                let doctor = try await sandboxed(broker, as: "com.example.Drafts", ["doctor"])
                #expect(doctor.status == 4 && doctor.output.contains("FAIL portal: no portal keyring") && doctor.output.contains("FAIL broker:"),
                        "\(doctor.output)")
            }
        }
    }
}
