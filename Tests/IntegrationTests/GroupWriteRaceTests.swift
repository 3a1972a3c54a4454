import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Synchronization
import Testing

extension KeyringTests {
    /// A write on a user's behalf (a refresh's save, a refused refresh's sign-out) never lands over another
    /// user that another process signed in to the group meanwhile. App A (live sync off, as the CLI and as an
    /// app in the moment before it hears of a change) holds alice and refreshes her token; the refresh is held
    /// at A's backend while `keyring-auth sign-in` (another process) signs bob in to the group; then it ends.
    @Suite struct GroupWriteRace {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        /// Rounds per run: the note on the change gives the count over several runs.
        static let rounds = 20

        @Test func aRefreshThatEndsAfterAnotherSignInLeavesTheNewUserInTheGroup() async throws {
            let emulator = try await startQuietEmulator()
            let address = try #require(emulator.address)
            let id = String(UUID().uuidString.prefix(8))
            let group = uniqueGroup().rawValue
            let options = AuthAppOptions(appName: "app-a", apiKey: "AIza-race-\(id)", appID: "1:42:linux:a-\(id)", projectID: "demo-keyring-auth")
            let appB = ["--api-key", "AIza-race-\(id)", "--app-id", "1:42:linux:b-\(id)", "--app-name", "app-b"]
            let reader = Auth(configuration: AuthConfiguration(
                options: AuthAppOptions(appName: "reader", apiKey: options.apiKey, appID: "1:42:linux:r-\(id)", projectID: options.projectID),
                store: SecretServiceStore(), liveSync: false))
            var flips = 0, wrongSignOuts = 0
            for round in 0..<Self.rounds {
                let backend = GatedRefreshBackend(IdentityToolkitBackend(apiKey: options.apiKey, endpoint: try .emulator(host: address.host, port: address.port)))
                let appA = Auth(configuration: AuthConfiguration(options: options, store: SecretServiceStore(), backend: backend, liveSync: false))
                try appA.useUserAccessGroup(group)
                let alice = try await appA.createUser(withEmail: "alice-\(round)-\(id)@example.com", password: "alice-password").user
                let bobEmail = "bob-\(round)-\(id)@example.com"
                // Every other round alice's account is disabled meanwhile: her refresh is refused, and A signs her out.
                let refused = round % 2 == 1
                let gate = GateFlag()
                backend.releaseWhen { gate.isOpen }
                let refresh = Task { try await alice.getIDToken(forcingRefresh: true) }
                try await backend.waitUntilHeld()

                let bob = try await cli.run(
                    ["sign-in", "--email", bobEmail, "--password-stdin", "--create", "--group", group, "--json", "--emulator", "\(address)"] + appB,
                    input: "bob-password\n")
                try #require(bob.status == 0, "\(bob.standardError)")
                let bobUID = try #require((try JSONSerialization.jsonObject(with: bob.standardOutput) as? [String: Any])?["uid"] as? String)
                if refused { try emulator.setAccount(alice.uid, disabled: true) }
                gate.open()
                let outcome = await refresh.result
                #expect(refused == ((try? outcome.get()) == nil), "round \(round): \(outcome)")

                let stored = try reader.getStoredUser(forAccessGroup: group)
                if stored == nil { wrongSignOuts += 1 }
                if let stored, stored.uid != bobUID { flips += 1 }
                #expect(appA.currentUser?.uid == bobUID, "round \(round): A adopted what the group holds")
            }
            #expect(flips == 0 && wrongSignOuts == 0, "\(Self.rounds) rounds: \(flips) flips to alice, \(wrongSignOuts) sign-outs of bob")
            try reader.useUserAccessGroup(group)
            try reader.signOut()
            await emulator.stop()
        }
    }
}

/// A flag the test opens once, read by the gated backend from its task.
private final class GateFlag: Sendable {
    private let opened = Mutex(false)
    func open() { opened.withLock { $0 = true } }
    var isOpen: Bool { opened.withLock { $0 } }
}
