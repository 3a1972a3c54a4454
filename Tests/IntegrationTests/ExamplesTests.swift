import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Logging
import Testing

extension KeyringTests {
    /// The examples under `Examples/` (the documents' code, and the two-app example) run as a person runs
    /// them: the built executables in subprocesses on the harness's bus, their exit status and key lines checked.
    @Suite struct Examples {
        init() throws { _ = try Harness.require() }

        private func run(_ example: String) async throws -> Subprocess.Result {
            let result = try await Subprocess.run(try Harness.product(example), [])
            #expect(result.status == 0, "\(example): \(result.output)\(result.standardError)")
            return result
        }

        private func lines(_ result: Subprocess.Result) -> [String] {
            result.output.split(separator: "\n").map(String.init)
        }

        /// The value after `prefix` on the line that starts with it.
        private func value(after prefix: String, in lines: [String]) throws -> String {
            String(try #require(lines.first { $0.hasPrefix(prefix) }, "a line \(prefix)…").dropFirst(prefix.count))
        }

        @Test func twoAppsInTwoProcessesShareOneSignInAndSignOut() async throws {
            let lines = lines(try await run("two-apps-example"))
            let uid = try value(after: "app-a signs in: ", in: lines)
            let steps = lines.filter { $0.hasPrefix("app-") }
            #expect(steps == [
                "app-b sees nobody", "app-a signs in: \(uid)", "app-b sees \(uid)", "app-b sees \(uid) (launched again)",
                "app-a signs out", "app-b sees nobody",
            ])
            #expect(!lines.contains { $0.contains("NOT AS EXPECTED") })
            #expect(lines.last?.hasPrefix("Both apps shared one sign-in") == true)
        }

        @Test func codeWrittenForFirebaseRunsAsTwoAppsOfOneGroup() async throws {
            // Examples/FirebasePort/run, as a person runs it, with the products the tests were built with.
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let script = root.appendingPathComponent("Examples/FirebasePort/run").path
            var environment = ProcessInfo.processInfo.environment
            environment["KEYRING_AUTH_BIN"] = URL(fileURLWithPath: try Harness.product("keyring-auth")).deletingLastPathComponent().path
            let result = try await Subprocess.run(script, [], environment: environment)
            #expect(result.status == 0, "\(result.output)\(result.standardError)")
            let lines = lines(result)
            #expect(lines.filter { $0.hasPrefix("watch sees: ") } == [
                "watch sees: nobody", "watch sees: porter@example.com", "watch sees: nobody",
            ], "the second app saw the first one's sign-in and sign-out as they happened")
            #expect(lines.contains("created and signed in: porter@example.com"), "the first sign-in's userNotFound was handled as NSError")
            #expect(lines.contains("signed in with: password"))
            #expect(lines.contains("signed in at launch: porter@example.com"), "a new launch of the first app found the user")
            let listener = lines.filter { $0.hasPrefix("listener: ") }
            #expect(listener.prefix(2).first == "listener: signed out" && listener.dropFirst().first?.hasPrefix("listener: ") == true
                && listener.dropFirst().first != "listener: signed out", "the listener heard the sign-in: \(listener)")
            #expect(lines.last == "both apps shared one sign-in")
        }

        /// Examples/FirebaseIdioms: each idiom Firebase's samples use around an Auth call, with only the import
        /// switched, against the emulator and the harness's keyring. The test plays the person: it opens the
        /// emails' links, reads the authenticator app, and mints the custom token the app's server would.
        @Test func firebasesIdiomsRunAsFirebaseDocumentsThem() async throws {
            var logger = Logger(label: "IntegrationTests")
            logger.logLevel = .warning
            let emulator = AuthEmulator(configuration: .init(port: 0, logger: logger))
            let address = try await emulator.start()
            do {
                try await Self.runIdioms(on: emulator, at: address)
            } catch {
                await emulator.stop()
                throw error
            }
            await emulator.stop()
        }

        private static func runIdioms(on emulator: AuthEmulator, at address: AuthEmulator.Address) async throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            var environment = ProcessInfo.processInfo.environment
            environment["GOOGLE_SERVICE_INFO_PATH"] = root.appendingPathComponent("Examples/FirebaseIdioms/GoogleService-Info.plist").path
            environment["FIREBASE_AUTH_EMULATOR_HOST"] = address.description
            // Line-buffered, as on a terminal: the test answers what the app asks.
            let app = try LineChannel(["stdbuf", "-oL", try Harness.product("firebase-idioms-example")], environment: environment)
            var passed: [String] = [], failed: [String] = [], secret = ""
            // Each code of a later time step than the one before: a code is accepted once. The first is the previous
            // step's, which the emulator still takes (clock skew).
            var nextCodeTime = Date().addingTimeInterval(-30)
            reading: while true {
                let line = try await app.nextLine(within: .seconds(120))
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case "ok": passed.append(String(line.dropFirst(3)))
                case "FAILED": failed.append(line)
                case "done": break reading
                case "totp" where words.count == 3: secret = words[2]
                case "ask" where words.count == 2 && words[1] == "totp-code":
                    let time = max(Date().addingTimeInterval(-30), nextCodeTime)
                    nextCodeTime = time.addingTimeInterval(30)
                    app.send(try #require(TOTP.code(base32Secret: secret, at: time)))
                case "ask" where words.count == 3 && words[1] == "custom-token":
                    app.send(AuthEmulator.unsignedCustomToken(uid: words[2]))
                case "ask" where words.count == 4 && words[1] == "email-link":
                    let code = emulator.outOfBandCodes.last { $0.requestType == words[2] && $0.email == words[3] }
                    app.send(try #require(code, "an email \(words[2]) to \(words[3])").oobLink)
                default: Issue.record("unexpected line: \(line)")
                }
            }
            #expect(await app.finish() == 0, "\(app.standardError)")
            #expect(failed.isEmpty, "\(failed)")
            #expect(passed.count == 32, "every idiom ran: \(passed)")
            #expect(passed.contains("catch let error as NSError where … && … in a throwing function"))
            #expect(passed.contains("a weak password's reason under NSLocalizedFailureReasonErrorKey"))
            #expect(passed.contains("secondFactorRequired, userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver, resolveSignIn"))
        }

        @Test func theReadmeWalkthroughRunsWithFirebasesListenerSequence() async throws {
            let lines = lines(try await run("shared-sign-in-example"))
            let shared = try value(after: "signed in: ", in: lines)
            #expect(shared.hasSuffix(" in TEAMID.com.example.group1"))
            let sharedUID = String(shared.prefix { $0 != " " })
            let privateUID = try #require(lines.first { $0.hasPrefix("signed in: ") && $0.hasSuffix(" in no group") }?
                .split(separator: " ")[2]).description
            #expect(sharedUID != privateUID, "the private sign-in is a new user")
            #expect(lines.contains("the group holds: nobody"), "signed out once, the group is empty")
            #expect(lines.contains("stream: \(privateUID)"), "migrated: the private user is current in the group")
            let listener = lines.filter { $0.hasPrefix("listener: ") }.map { String($0.dropFirst("listener: ".count)) }
            #expect(listener == [
                "signed out", sharedUID, "signed out", privateUID,
                "signed out", privateUID,  // migration: nil, then the user
                "signed out",  // the example's clean-up
            ])
        }

        @Test func theReadmeSecretKeychainBlocksStoreReadListAndRemove() async throws {
            let lines = lines(try await run("secret-keychain-example"))
            #expect(lines.contains(#"read back: {"version": 1, "uid": "example-user"}"#))
            #expect(lines.contains { $0.hasPrefix("listed: ") && $0.contains("Example app user") })
            #expect(lines.contains("after removing: nothing"))
        }

        @Test func theReadmeEmulatorBlocksSignInAndExport() async throws {
            let lines = lines(try await run("emulator-example"))
            let exported = try #require(lines.first { $0.hasPrefix("exported: ") })
            let signedIn = try #require(exported.components(separatedBy: " signed in: ").last)
            #expect(exported == #"exported: ["\#(signedIn)"] signed in: \#(signedIn)"#, "the export holds the one account")
        }

        @Test func theSignInMethodsBlockSignsInWithAProviderACustomTokenAndLinks() async throws {
            let lines = lines(try await run("sign-in-methods-example"))
            #expect(lines.contains { $0.hasPrefix("google user: ") && $0.hasSuffix(" new: true") }, "\(lines)")
            #expect(lines.contains("custom user: server-user-1 role: editor"))
            #expect(lines.contains(#"permanent: true ["password"]"#))
            #expect(lines.last == "accounts: 3")
        }

        @Test func theEmailActionsBlockVerifiesResetsAndSignsInWithALink() async throws {
            let lines = lines(try await run("email-actions-example"))
            #expect(lines == [
                "verified: true", "reset for: ada@example.com", "signed out: true",
                "signed in with a link: grace@example.com verified: true", "codes left: 0",
            ])
        }

        @Test func thePhoneNumbersBlockSignsInByPhoneAndFinishesASignInWithAnSMSFactor() async throws {
            let lines = lines(try await run("phone-numbers-example"))
            #expect(lines == [
                "signed in: +15555550100", "second factor: +*******0123 signed in: ada@example.com", "codes left: 0",
            ])
        }

        @Test func theAppCheckBlocksSignInWithTheDebugProviderAndACustomOneOnAnEmulatorEnforcingIt() async throws {
            let lines = lines(try await run("app-check-example"))
            #expect(lines == [
                "signed in, anonymous: true", "token valid for about 60 minutes", "Notes signed in, anonymous: true",
                "exchanges: exchangeDebugToken, exchangeCustomToken",
            ])
        }

        @Test func theDesktopSignInBlocksSignInWithStandInsForGoogleMicrosoftAndTheBrowser() async throws {
            let lines = lines(try await run("desktop-sign-in-example"))
            #expect(lines.first == "Sign in with Google in your browser; if none opened, open http://127.0.0.1…", "\(lines)")
            #expect(lines.contains { $0.hasPrefix("signed in: ") && $0.hasSuffix(#" grace@example.com ["google.com"]"#) }, "\(lines)")
            #expect(lines.contains("the browser shows: you can close this tab"), "\(lines)")
            #expect(lines.contains(#"signed in with Microsoft: ada@contoso.example ["microsoft.com"]"#), "\(lines)")
            #expect(lines.suffix(2) == ["Enter ABCD-1234 at /login/device", #"signed in with GitHub: octocat@example.com ["github.com"]"#], "\(lines)")
        }

        @Test func theErrorHandlingBlocksCatchANetworkErrorBothWays() async throws {
            let lines = lines(try await run("error-handling-example"))
            #expect(lines == ["typed: caught", "ERROR_NETWORK_REQUEST_FAILED"])
        }
    }
}
