import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// A locked, stopped, restarted or missing provider: typed errors in bounded time, nothing lost.
    @Suite struct Failures {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        /// A store that never prompts (`unlockTimeout: nil`) fails with `locked` on every provider. One
        /// that may prompt meets the provider's prompt: refused at once (gnome-keyring with no
        /// prompter) or never answered headless (KeePassXC, bounded by the store's 2 s unlock
        /// limit): `locked`; or completed by itself (KWallet's empty-password wallet): the call
        /// succeeds and the wallet is unlocked again.
        @Test func aLockedCollectionFailsWithLockedAndLosesNothing() async throws {
            let store = SecretServiceStore(configuration: .init(timeout: .seconds(2), unlockTimeout: .seconds(2)))
            let neverPrompts = SecretServiceStore(configuration: .init(timeout: .seconds(2), unlockTimeout: nil))
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("kept"), for: key, label: "l")

            try await harness.lockLoginCollection()
            defer { try? harness.unlockLoginCollection() }
            let locked = KeychainError.locked(collection: "the default alias")
            var refusing = [neverPrompts]
            if harness.provider.unlockPrompt != .unlocksByItself { refusing.append(store) }
            for candidate in refusing {
                await #expect(throws: locked) { try await returnsWithin(.seconds(30)) { try await candidate.data(for: key) } }
                await #expect(throws: locked) {
                    try await returnsWithin(.seconds(30)) { try await candidate.setData(.text("overwritten"), for: key, label: "l") }
                }
                await #expect(throws: locked) { try await returnsWithin(.seconds(30)) { try await candidate.removeData(for: key) } }
                await #expect(throws: locked) { try await returnsWithin(.seconds(30)) { try await candidate.items(in: .all) } }
                await #expect(throws: locked) {
                    try await returnsWithin(.seconds(30)) { try await candidate.data(for: uniqueKey(in: uniqueGroup())) }
                }
            }
            #expect(try await harness.defaultCollectionIsLocked(), "no call unlocked it")
            if harness.provider.unlockPrompt == .unlocksByItself {
                #expect(try await returnsWithin(.seconds(30)) { try await store.data(for: key) } == .text("kept"))
                #expect(try await !harness.defaultCollectionIsLocked(), "the store's unlock prompt unlocked it")
            }

            try harness.unlockLoginCollection()
            #expect(try await store.data(for: key) == .text("kept"))
            try await store.removeData(for: key)
        }

        /// Whatever limits an app configures, the store takes them: the longest a `Duration` holds
        /// works; zero or below has run out before the call starts, so the call fails `timedOut`,
        /// every time.
        @Test func anyConfiguredLimitIsTakenWithoutATrap() async throws {
            let key = uniqueKey(in: uniqueGroup())
            let longest = SecretServiceStore(configuration: .init(timeout: .seconds(Int64.max), unlockTimeout: .seconds(Int64.max)))
            try await longest.setData(.text("kept"), for: key, label: "l")
            #expect(try await longest.data(for: key) == .text("kept"))
            for limit in [Duration.zero, .seconds(-1)] {
                let expired = SecretServiceStore(configuration: .init(timeout: limit))
                await #expect {
                    try await returnsWithin(.seconds(30)) { try await expired.data(for: key) }
                } throws: { error in
                    guard case KeychainError.timedOut = error else { return false }
                    return true
                }
            }
            #expect(try await longest.data(for: key) == .text("kept"))
            try await longest.removeData(for: key)
        }

        @Test func aProviderThatDoesNotAnswerTimesOutAndTheNextCallWorks() async throws {
            let store = SecretServiceStore(configuration: .init(timeout: .seconds(1)))
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("before"), for: key, label: "l")

            let provider = try harness.providerPID()
            kill(provider, SIGSTOP)
            defer { kill(provider, SIGCONT) }
            await #expect {
                try await returnsWithin(.seconds(30)) { try await store.data(for: key) }
            } throws: { error in
                guard case KeychainError.timedOut(let operation, let limit, let writes) = error else { return false }
                // A read changed nothing: its message must not say the outcome is unknown.
                return limit == .seconds(1) && operation.hasPrefix("Reading") && !writes && !"\(error)".contains("may or may not")
            }
            kill(provider, SIGCONT)

            #expect(try await store.data(for: key) == .text("before"))
            try await store.removeData(for: key)
        }

        @Test func aRestartedProviderIsReachedByTheSameStoreAndKeepsItsItems() async throws {
            let store = SecretServiceStore()
            let key = uniqueKey(in: uniqueGroup())
            try await store.setData(.text("before the restart"), for: key, label: "l")
            let before = try harness.providerPID()

            try await harness.restartProvider()
            #expect(try harness.providerPID() != before)

            #expect(try await store.data(for: key) == .text("before the restart"))
            try await store.setData(.text("after the restart"), for: key, label: "l")
            #expect(try await store.data(for: key) == .text("after the restart"))
            try await store.removeData(for: key)
        }

        /// A provider that answers a write or a delete with a prompt and never completes it (KeePassXC
        /// showing a dialog nobody answers): the store stops waiting within its limit, fails
        /// `timedOut` saying the outcome is unknown, and dismisses the prompt, where libsecret's
        /// own prompt wait would block the calling thread for good (`secret-tool clear` does, here).
        @Test func aPromptTheProviderNeverCompletesTimesOutAndIsDismissed() async throws {
            let key = uniqueKey(in: uniqueGroup())
            let limit = Duration.seconds(1)
            let (_, calls) = try await harness.withStallingPrompts {
                let store = SecretServiceStore(configuration: .init(timeout: limit))
                let operations: [(String, @Sendable () async throws -> Void)] = [
                    ("Storing", { try await store.setData(.text("never stored"), for: key, label: "l") }),
                    ("Removing", { try await store.removeData(for: key) }),
                ]
                for (verb, operation) in operations {
                    await #expect { try await returnsWithin(.seconds(30), operation) } throws: { error in
                        guard case KeychainError.timedOut(let operation, let reported, let writes) = error else { return false }
                        return operation.hasPrefix(verb) && reported <= limit && writes && "\(error)".contains("may or may not")
                    }
                }
                // The next call is answered (the fake's one item). Sent on the connection that sent the
                // dismissals, after them, so the fake has logged those once this returns.
                let answer = try await returnsWithin(.seconds(30)) { try await store.data(for: key) }
                #expect(answer == .text("stalling"))
            }
            let prompts = calls.filter { $0.hasPrefix("Prompt.Prompt ") }.map { $0.dropFirst("Prompt.Prompt ".count) }
            #expect(calls.contains { $0.hasPrefix("Collection.CreateItem ") } && calls.contains { $0.hasPrefix("Item.Delete ") })
            #expect(prompts.count == 2, "\(calls)")
            for prompt in prompts {
                #expect(calls.contains("Prompt.Dismiss \(prompt)"), "the prompt at \(prompt) was left open: \(calls)")
            }
        }

        @Test func aMissingCollectionIsReportedAndNeverCreated() async throws {
            let path = "/org/freedesktop/secrets/collection/does_not_exist"
            let store = SecretServiceStore(configuration: .init(collection: .objectPath(path)))
            let key = uniqueKey(in: uniqueGroup())
            await #expect { try await store.data(for: key) } throws: { ($0 as? KeychainError)?.code == "noSuchCollection" }
            await #expect { try await store.setData(.text("x"), for: key, label: "l") } throws: {
                ($0 as? KeychainError)?.code == "noSuchCollection"
            }
            #expect(try RawSecretService.items(matching: ["service": key.service]).isEmpty)
        }

        @Test(arguments: ["/a//b", "/a/", "/a b"])
        func anInvalidCollectionPathIsRefusedBeforeAnyCall(_ path: String) async throws {
            let store = SecretServiceStore(configuration: .init(collection: .objectPath(path)))
            let key = uniqueKey(in: uniqueGroup())
            let calls: [@Sendable () async throws -> Void] = [
                { () async throws in _ = try await store.data(for: key) },
                { () async throws in try await store.setData(.text("x"), for: key, label: "l") },
                { () async throws in _ = try await store.items(in: .all) },
                { () async throws in _ = try await store.observeChanges(in: .all) { _ in } },
            ]
            for call in calls {
                await #expect { try await returnsWithin(.seconds(30), call) } throws: {
                    ($0 as? KeychainError)?.code == "invalidCollectionPath"
                }
            }
            #expect(store.diagnose().collectionError?.code == "invalidCollectionPath")
        }

        @Test func withoutASessionBusTheErrorIsNoSessionBus() async throws {
            let tool = try Harness.product("keychain-probe")
            let emptyRuntime = harness.root.appendingPathComponent("no-bus-runtime-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: emptyRuntime, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["DISPLAY"] = nil
            environment["XDG_RUNTIME_DIR"] = emptyRuntime.path
            let result = try await Subprocess.run(
                tool, ["write", "--service", "s", "--account", "a"], input: .text("x"), environment: environment)
            #expect(result.status == 4)
            #expect(result.standardError.contains("error[noSessionBus]"))
        }

        @Test func withoutAProviderTheErrorIsNoProviderAndNothingFallsBackToMemory() async throws {
            let tool = try Harness.product("keychain-probe")
            let withBus = harness.scripts.appendingPathComponent("with-bus").path
            let result = try await Subprocess.run(
                withBus, [tool, "write", "--service", "s", "--account", "a"], input: .text("x"))
            #expect(result.status == 4)
            #expect(result.standardError.contains("error[noProvider]"))
        }
    }
}
