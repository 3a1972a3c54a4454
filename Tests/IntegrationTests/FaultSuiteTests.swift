import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

extension KeyringTests {
    /// Eight apps of one group, each a process of its own (`auth-probe … chaos`), making random
    /// sign-ins, sign-outs and token refreshes at once, with live sync on: alone, with the provider
    /// killed under them, and with the collection locked under them.
    /// Skipped, by name and reason, on a provider that cannot take it (``Harness/Provider/concurrentWritersUnsupported``).
    @Suite(.enabledUnlessTheProviderCrashesUnderConcurrentWriters)
    struct FaultSuite {
        let harness: Harness
        init() throws { harness = try Harness.require() }

        @Test func eightAppsMakingTwoHundredRandomOperationsEachLoseNothing() async throws {
            let run = try await ChaosRun.start(apps: 8)
            let operations = try await run.all(200)

            for (app, ops) in operations.enumerated() {
                #expect(ops.count == 200, "app \(app) (seed \(run.seed(of: app)))")
                let failed = ops.filter { !$0.succeeded }
                #expect(failed.isEmpty, "app \(app) (seed \(run.seed(of: app))): \(failed.prefix(5))")
                let incomplete = ops.filter { !$0.readCompleteUserOrNone }
                #expect(incomplete.isEmpty, "app \(app) (seed \(run.seed(of: app))) read: \(incomplete.prefix(5))")
            }
            // The run did make every kind of change, and apps did see users and no user.
            let all = operations.joined()
            #expect(Set(all.map(\.kind)) == ["sign-in", "sign-out", "refresh"])
            #expect(all.contains { $0.read == "none" } && all.contains { $0.read != "none" })
            try run.expectOneItemPerKey()
            try await run.expectStoredUserCompleteOrNone()
            try await run.finish()
        }

        @Test func providerKilledMidRunGivesTypedErrorsThenRecoversLosingNothing() async throws {
            let run = try await ChaosRun.start(apps: 8)
            let sentinels = try await Sentinels.write()
            #expect(try await run.all(20).joined().allSatisfy(\.succeeded))

            // Kill the provider while every app is in the middle of a batch.
            run.send("run 200")
            try await run.waitForEachApp { $0.count >= 5 }
            kill(try harness.providerPID(), SIGKILL)
            try await harness.stopProvider()
            let outage = try await run.waitForEachApp { $0.last == .batchDone }
            for (app, lines) in outage.enumerated() {
                let failed = lines.compactMap(\.operation).filter { !$0.succeeded }
                #expect(!failed.isEmpty, "app \(app) saw no failure while the provider was gone")
                let untyped = failed.filter { !$0.failedWithKeychainError }
                #expect(untyped.isEmpty, "app \(app): \(untyped.prefix(5))")
                let torn = lines.compactMap(\.operation).filter { !$0.readCompleteUserOrNone && !$0.readFailedWithKeychainError }
                #expect(torn.isEmpty, "app \(app): \(torn.prefix(5))")
            }

            try await harness.startProvider()
            try await sentinels.expectIntact()
            try run.expectGroupChoicesKept()
            // The group's item can come back with an empty secret: gnome-keyring writes a new item
            // to its file before its secret (CreateItem is two writes), and KWallet keeps
            // attributes at once but secrets on a 5 s timer.
            try await run.expectStoredUserCompleteOrNone(orEmptiedByAKill: true)
            let after = try await run.all(20).joined()
            #expect(after.allSatisfy { $0.succeeded && $0.readCompleteUserOrNone }, "\(after.filter { !$0.succeeded || !$0.readCompleteUserOrNone }.prefix(5))")
            try run.expectOneItemPerKey()
            try await run.finish()
            try await sentinels.remove()
        }

        /// KWallet's unlock prompt completes by itself headless (the empty-password wallet), so apps
        /// that may prompt open the wallet again at once and it never stays locked; there the apps
        /// never prompt (`unlockTimeout` nil), which is what gnome-keyring's missing prompter amounts to.
        @Test func collectionLockedMidRunGivesTypedErrorsWithinTheLimit() async throws {
            let run = try await ChaosRun.start(apps: 8, prompting: harness.provider.unlockPrompt != .unlocksByItself)
            let sentinels = try await Sentinels.write()
            defer { try? harness.unlockLoginCollection() }

            // Locked while every app is early in its batch (they started it together). Each failing
            // operation waits for the unlock prompt's limit, so the batch is kept short.
            run.send("run 40")
            try await run.waitForEachApp { $0.count >= 2 }
            try await harness.lockLoginCollection()
            let locked = try await run.waitForEachApp { $0.last == .batchDone }
            for (app, lines) in locked.enumerated() {
                let failed = lines.compactMap(\.operation).filter { !$0.succeeded }
                #expect(!failed.isEmpty, "app \(app) saw no failure while the collection was locked")
                #expect(failed.allSatisfy { $0.code == "keychainError/locked" }, "app \(app): \(failed.prefix(5))")
                // The apps' store allows 2 s per call and 0.25 s for the unlock prompt.
                let slow = failed.filter { $0.milliseconds > ChaosRun.operationLimitMilliseconds }
                #expect(slow.isEmpty, "app \(app): \(slow.prefix(5))")
            }

            try harness.unlockLoginCollection()
            try await sentinels.expectIntact()
            try run.expectGroupChoicesKept()
            let after = try await run.all(20).joined()
            #expect(after.allSatisfy { $0.succeeded && $0.readCompleteUserOrNone }, "\(after.filter { !$0.succeeded || !$0.readCompleteUserOrNone }.prefix(5))")
            try run.expectOneItemPerKey()
            try await run.finish()
            try await sentinels.remove()
        }
    }
}

/// One line of an `auth-probe … chaos` app.
enum ChaosLine: Equatable, CustomStringConvertible {
    case operation(ChaosOperation)
    case batchDone

    init(parsing line: String) throws {
        if line == "batch done" {
            self = .batchDone
        } else {
            self = .operation(try ChaosOperation(parsing: line))
        }
    }

    var operation: ChaosOperation? {
        if case .operation(let operation) = self { return operation }
        return nil
    }

    var description: String {
        switch self {
        case .operation(let operation): return operation.description
        case .batchDone: return "batch done"
        }
    }
}

/// `op KIND ok|fail CODE MILLISECONDS read=…` (see `Tests/auth-probe/Chaos.swift`).
struct ChaosOperation: Equatable, CustomStringConvertible {
    var kind: String
    var succeeded: Bool
    var code: String
    var milliseconds: Double
    /// A uid, `none`, `fail CODE` or `torn WHY`.
    var read: String
    var description: String

    init(parsing line: String) throws {
        let words = line.split(separator: " ", maxSplits: 5).map(String.init)
        guard words.count == 6, words[0] == "op", let milliseconds = Double(words[4]), words[5].hasPrefix("read=") else {
            throw Subprocess.Failure(description: "not a chaos line: \(line)")
        }
        (kind, succeeded, code, self.milliseconds) = (words[1], words[2] == "ok", words[3], milliseconds)
        read = String(words[5].dropFirst("read=".count))
        description = line
    }

    /// The read after the operation gave a complete user (a uid the app printed) or none.
    var readCompleteUserOrNone: Bool { !read.hasPrefix("fail ") && !read.hasPrefix("torn ") }
    var failedWithKeychainError: Bool { !succeeded && code.hasPrefix("keychainError/") }
    var readFailedWithKeychainError: Bool { read.hasPrefix("fail keychainError/") }
}

/// Apps of one fresh group, each an `auth-probe … chaos` process, signing in against one emulator
/// with the accounts `Chaos.swift` names.
struct ChaosRun {
    /// The longest a failing operation may take: twice the apps' call limit (2 s), which is far
    /// more than a locked collection's prompt gets (0.25 s). Without limits it would wait forever.
    static let operationLimitMilliseconds = 4_000.0

    let apps: [LineChannel]
    let group: AccessGroup
    let namespace: String
    let emulator: AuthEmulator
    let firstSeed: UInt64

    func seed(of app: Int) -> UInt64 { firstSeed &+ UInt64(app) }

    /// - Parameter prompting: Whether the apps' stores ask the provider to unlock a locked
    ///   collection (for 0.25 s), or never do.
    static func start(apps count: Int, prompting: Bool = true) async throws -> ChaosRun {
        let emulator = try await startQuietEmulator()
        let address = try #require(emulator.address)
        let namespace = String(UUID().uuidString.prefix(8))
        let group = uniqueGroup()
        let creator = Auth(configuration: AuthConfiguration(
            options: AuthAppOptions(appName: "creator", apiKey: "AIza-\(namespace)", appID: "1:42:linux:creator", projectID: "demo"),
            store: InMemoryStore()))
        creator.useEmulator(withHost: address.host, port: address.port)
        for index in 0..<3 {
            _ = try await creator.createUser(withEmail: "chaos\(index)@example.com", password: "chaos-password")
        }

        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = "\(address)"
        let firstSeed = UInt64.random(in: 1...UInt64.max / 2)
        var apps: [LineChannel] = []
        for app in 0..<count {
            apps.append(try LineChannel(
                [try Harness.product("auth-probe"), namespace, "app\(app)", "chaos", group.rawValue, "\(firstSeed &+ UInt64(app))"]
                    + (prompting ? [] : ["never-prompt"]),
                environment: environment))
        }
        for app in apps {
            let ready = try await app.nextLine(within: .seconds(60))
            #expect(ready == "ready live=true", "\(app.standardError)")
        }
        return ChaosRun(apps: apps, group: group, namespace: namespace, emulator: emulator, firstSeed: firstSeed)
    }

    func send(_ line: String) {
        for app in apps { app.send(line) }
    }

    /// Reads each app's lines until `enough` holds for what it printed since this call.
    @discardableResult
    func waitForEachApp(until enough: ([ChaosLine]) -> Bool) async throws -> [[ChaosLine]] {
        var result: [[ChaosLine]] = []
        for app in apps {
            var lines: [ChaosLine] = []
            while !enough(lines) {
                lines.append(try ChaosLine(parsing: try await app.nextLine(within: .seconds(120))))
            }
            result.append(lines)
        }
        return result
    }

    /// Every app makes `count` operations at once; returns each app's operations.
    func all(_ count: Int) async throws -> [[ChaosOperation]] {
        send("run \(count)")
        return try await waitForEachApp { $0.last == .batchDone }.map { $0.compactMap(\.operation) }
    }

    /// The group's shared user is at most one item (the apps' group choices are files, not items).
    func expectOneItemPerKey() throws {
        let items = try RawSecretService.items(matching: [SecretServiceSchema.schemaAttribute: SecretServiceSchema.name])
            .filter { $0.attributes[SecretServiceSchema.accessGroupAttribute] == group.rawValue
                || $0.attributes[SecretServiceSchema.serviceAttribute]?.hasSuffix(namespace) == true }
        let perKey = Dictionary(grouping: items, by: \.attributes).mapValues(\.count)
        #expect(perKey.values.allSatisfy { $0 == 1 }, "\(perKey.filter { $0.value > 1 })")
        #expect(perKey.count <= 1, "only the group's shared user: \(perKey.keys)")
    }

    /// Each app's choice of the group, saved when it started, is still there.
    func expectGroupChoicesKept() throws {
        for app in 0..<apps.count {
            let file = try #require(AccessGroupChoices.standard().fileURL(forAppID: "1:42:linux:app\(app)\(namespace)"))
            let choice = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: String]
            #expect(choice == ["firebase_auth_stored_user_access_group": group.rawValue], "app \(app)")
        }
    }

    /// What an app launching now would read: a complete user or none, never a typed failure.
    /// - Parameter orEmptiedByAKill: Also accepts the group's item holding an empty secret, as a
    ///   provider that saves secrets late leaves it after a SIGKILL. Apps read it as a corrupt
    ///   user, so none of them is signed in to sign out or refresh: it stays until someone signs
    ///   in, which this does, as the person at one of the apps would.
    func expectStoredUserCompleteOrNone(orEmptiedByAKill: Bool = false) async throws {
        let reader = Auth(configuration: AuthConfiguration(
            options: AuthAppOptions(appName: "reader", apiKey: "AIza-\(namespace)", appID: "1:42:linux:reader\(namespace)", projectID: "demo"),
            store: SecretServiceStore(), liveSync: false))
        if orEmptiedByAKill {
            let raw = try RawSecretService.items(matching: SecretServiceSchema.attributes(for: .group(group)))
            if raw.count == 1, raw[0].secret.isEmpty {
                do {
                    _ = try reader.getStoredUser(forAccessGroup: group.rawValue)
                    Issue.record("an emptied item read as a user")
                } catch {
                    #expect((error as? AuthError)?.code == .corruptStoredUser, "\(error)")
                }
                apps[0].send("sign-in")
                let signIn = try ChaosOperation(parsing: try await apps[0].nextLine(within: .seconds(60)))
                #expect(signIn.succeeded && signIn.readCompleteUserOrNone && signIn.read != "none", "\(signIn)")
            }
        }
        if let user = try reader.getStoredUser(forAccessGroup: group.rawValue) {
            #expect(["chaos0@example.com", "chaos1@example.com", "chaos2@example.com"].contains(user.email))
            #expect(try await !user.getIDToken().isEmpty)
        }
    }

    /// Ends every app (none may have crashed) and removes what the run stored.
    func finish() async throws {
        for (index, app) in apps.enumerated() {
            #expect(await app.finish() == 0, "app \(index) (seed \(seed(of: index))): \(app.standardError.suffix(2000))")
        }
        _ = try await SecretServiceStore().removeAll(in: group)
        await emulator.stop()
    }
}

/// Items written before a fault, by this package and by another client, checked byte for byte after it.
struct Sentinels {
    let key: KeychainKey
    let value = Data("written before the fault \(UUID().uuidString)".utf8)
    let foreign = ["keyring-auth-test": "sentinel-\(UUID().uuidString)"]
    let foreignSecret = "another client's secret \(UUID().uuidString)"

    static func write() async throws -> Sentinels {
        let sentinels = Sentinels(key: uniqueKey(in: uniqueGroup()))
        try await SecretServiceStore().setData(sentinels.value, for: sentinels.key, label: "sentinel")
        _ = try RawSecretService.createWithoutReplacing(
            attributes: sentinels.foreign, label: "sentinel", secret: sentinels.foreignSecret)
        // Written before the fault means in the provider's file: KWallet writes its file on a 5 s
        // timer, and a kwalletd killed before that loses them. The harness's KeePassXC saves only when its
        // database is locked (dbus/providers/keepassxc).
        try await Harness.require().saveProvider()
        return sentinels
    }

    func expectIntact() async throws {
        #expect(try await SecretServiceStore().data(for: key) == value)
        let foreignItems = try RawSecretService.items(matching: foreign)
        #expect(
            foreignItems.map(\.secret) == [Data(foreignSecret.utf8)],
            "another client's sentinel came back as \(foreignItems.map { "\($0.path) label \($0.label): \(String(decoding: $0.secret, as: UTF8.self))" })")
    }

    func remove() async throws {
        try await SecretServiceStore().removeData(for: key)
        let (name, value) = foreign.first!
        try await SecretTool.run(["clear", name, value]).requireSuccess("secret-tool clear")
    }
}
