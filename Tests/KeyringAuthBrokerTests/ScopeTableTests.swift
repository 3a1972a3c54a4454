import KeyringAuth
import SecretKeychain
import Testing
@testable import KeyringAuthBroker

/// The broker's `Auth`s: one app holds at most sixteen scopes at once, and a full table makes room by releasing the
/// scope used least lately that no call or watch holds, so that no app keeps another out.
@Suite struct ScopeTableTests {
    private static func scope(_ index: Int) -> AuthScope {
        AuthScope(
            options: AuthAppOptions(appName: "app\(index)", apiKey: "AIza-x", appID: "1:1:linux:\(index)", projectID: "demo"), group: nil)
    }

    private static func auth(_ index: Int) -> Auth {
        Auth(configuration: AuthConfiguration(
            options: scope(index).options, store: InMemoryStore(),
            backend: IdentityToolkitBackend(apiKey: "AIza-x", endpoint: .production), liveSync: false))
    }

    /// Adds scope `index`, held once by `app`, and answers what was released to make room.
    @discardableResult
    private static func add(_ index: Int, by app: String, to table: inout ScopeTable) throws -> Auth? {
        let released = try table.makeRoom(for: scope(index), by: app)
        try table.insert(auth(index), for: scope(index), by: app)
        return released
    }

    @Test func aFullTableReleasesTheScopeUsedLeastLatelyThatNobodyHolds() throws {
        var table = ScopeTable()
        for index in 0..<ScopeTable.capacity {
            #expect(try Self.add(index, by: "a", to: &table) == nil)
            table.release(Self.scope(index), by: "a")
        }
        let second = try #require(table[Self.scope(2)])
        // Scope 0 is used again, scope 1 is held by a watch: scope 2 is the one used least lately that nobody holds.
        _ = try table.hold(Self.scope(0), by: "b")
        table.release(Self.scope(0), by: "b")
        _ = try table.hold(Self.scope(1), by: "b")
        let released = try Self.add(1000, by: "c", to: &table)
        #expect(released === second)
        #expect(table[Self.scope(2)] == nil && table[Self.scope(0)] != nil && table[Self.scope(1)] != nil && table[Self.scope(1000)] != nil)
    }

    @Test func aScopeIsGivenBackOnceEveryAppThatUsedItHasLeftAndNoCallHoldsIt() throws {
        var table = ScopeTable()
        try Self.add(0, by: "host:100", to: &table)
        table.release(Self.scope(0), by: "host:100")
        _ = try table.hold(Self.scope(0), by: "com.example.Notes")
        table.release(Self.scope(0), by: "com.example.Notes")
        try Self.add(1, by: "host:100", to: &table)
        #expect(table.release(Self.scope(1), by: "host:100") == nil, "its app is still connected")

        // The host process leaves: scope 1 was its alone; scope 0 is still Notes's.
        let first = try #require(table[Self.scope(1)])
        let released = table.appLeft("host:100")
        #expect(released.count == 1 && released.first === first)
        #expect(table[Self.scope(1)] == nil && table[Self.scope(0)] != nil)

        // Notes leaves while one of its calls holds scope 0: the scope goes when that call ends.
        _ = try table.hold(Self.scope(0), by: "com.example.Notes")
        #expect(table.appLeft("com.example.Notes").isEmpty)
        let zero = try #require(table[Self.scope(0)])
        #expect(table.release(Self.scope(0), by: "com.example.Notes") === zero)
        #expect(table[Self.scope(0)] == nil)
    }

    @Test func oneAppHoldsAtMostSixteenScopesWhileOthersAreServed() throws {
        var table = ScopeTable()
        for index in 0..<ScopeTable.maximumHeldPerApp { try Self.add(index, by: "org.evil.App", to: &table) }
        do {
            try Self.add(100, by: "org.evil.App", to: &table)
            Issue.record("a seventeenth scope was held")
        } catch let error as BrokerError {
            #expect(error.message.contains("at most") || error.message.contains("the most"), "\(error.message)")
        }
        // Another app is served, also in the scopes the first holds (a group both use); the first may not join the other's.
        try Self.add(101, by: "com.example.Notes", to: &table)
        #expect(try table.hold(Self.scope(0), by: "com.example.Notes") != nil)
        #expect(throws: BrokerError.self) { _ = try table.hold(Self.scope(101), by: "org.evil.App") }
        // A scope it holds already may be held again (a second call, a watch).
        #expect(try table.hold(Self.scope(0), by: "org.evil.App") != nil)
        // Once it lets go of one scope entirely, it may hold another.
        table.release(Self.scope(3), by: "org.evil.App")
        try Self.add(102, by: "org.evil.App", to: &table)
    }

    @Test func aTableEveryScopeOfWhichIsHeldRefusesAnotherUntilOneIsReleased() throws {
        var table = ScopeTable()
        let apps = (0..<(ScopeTable.capacity / ScopeTable.maximumHeldPerApp)).map { "app\($0)" }
        for (number, app) in apps.enumerated() {
            for index in 0..<ScopeTable.maximumHeldPerApp { try Self.add(number * 100 + index, by: app, to: &table) }
        }
        #expect(throws: BrokerError.self) { try Self.add(9999, by: "late", to: &table) }
        table.release(Self.scope(5), by: "app0")
        #expect(try Self.add(9999, by: "late", to: &table) != nil)
        #expect(table[Self.scope(5)] == nil)
    }
}
