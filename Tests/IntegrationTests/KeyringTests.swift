import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Logging
import SecretKeychain
import Testing

/// Every test that touches the keyring is nested in this suite, so none runs beside another:
/// some lock, stop or restart the provider that all of them share. The whole target runs only
/// inside `dbus/with-keyring` (a private bus, a throwaway keyring); elsewhere it fails, never
/// touching the keyring of the person running it.
@Suite(.serialized) struct KeyringTests {}

/// The two stores the contract suite runs against.
enum StoreUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case secretService
    case inMemory

    var testDescription: String { rawValue }

    /// Whether replacing an item gives it the new label: always in memory; on the Secret Service,
    /// as the harness's provider does (``Harness/Provider/replacesLabel``).
    var replacesLabel: Bool {
        switch self {
        case .secretService: (try? Harness.require())?.provider.replacesLabel ?? true
        case .inMemory: true
        }
    }

    func make() throws -> any KeychainStore {
        switch self {
        case .secretService:
            _ = try Harness.require()
            return SecretServiceStore()
        case .inMemory:
            return InMemoryStore()
        }
    }
}

/// A key no other test uses.
func uniqueKey(in group: AccessGroup? = nil, account: String = "firebase_auth_firebase_user") -> KeychainKey {
    KeychainKey(service: "test-\(UUID().uuidString)", account: account, accessGroup: group)
}

/// A group no other test uses.
func uniqueGroup() -> AccessGroup {
    try! AccessGroup("TEAMID.test.\(UUID().uuidString)")
}

extension Data {
    static func text(_ string: String) -> Data { Data(string.utf8) }
}

/// Runs `body`, failing if it has not returned within `limit`: a hang becomes a test failure
/// instead of a stuck run. The body runs in a task of its own, which is left behind if it hangs.
func returnsWithin<Result: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let outcome = AsyncStream<Swift.Result<Result, any Error>?>.makeStream()
    let work = Task {
        do { outcome.continuation.yield(.success(try await body())) } catch { outcome.continuation.yield(.failure(error)) }
    }
    let timer = Task {
        try await Task.sleep(for: limit)
        outcome.continuation.yield(nil)
    }
    defer { timer.cancel(); work.cancel() }
    for await first in outcome.stream {
        guard let first else { break }
        return try first.get()
    }
    throw Subprocess.Failure(description: "the call did not return within \(limit)")
}

/// Items are stamped in whole seconds; tests that need one item to be newer than another wait
/// for the clock to reach the next second (the timestamps' resolution, not a synchronisation).
func waitForNextWholeSecond() async throws {
    let now = Date().timeIntervalSince1970
    try await Task.sleep(for: .seconds(now.rounded(.down) + 1 - now + 0.02))
}

/// The bundled emulator on a free port, logging only warnings.
func startQuietEmulator() async throws -> AuthEmulator {
    var logger = Logger(label: "IntegrationTests.emulator")
    logger.logLevel = .warning
    let emulator = AuthEmulator(configuration: .init(port: 0, logger: logger))
    try await emulator.start()
    return emulator
}

extension Trait where Self == ConditionTrait {
    /// Skips a test (naming the reason) on a provider that crashes when several clients write and
    /// delete one item at once (``Harness/Provider/concurrentWritersUnsupported``).
    public static var enabledUnlessTheProviderCrashesUnderConcurrentWriters: Self {
        let reason = (try? Harness.require())?.provider.concurrentWritersUnsupported
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? ""))
    }
}
