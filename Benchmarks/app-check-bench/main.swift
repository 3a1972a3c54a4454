import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain
import Subprocesses

// App Check's figures, printed as Markdown lines (`Benchmarks/app-check` runs it under dbus/with-keyring):
//   app-check-bench cached RUNS      what a kept token adds to a request: the `X-Firebase-AppCheck` value's lookup
//   app-check-bench launches N ROUNDS  N processes of one app launching together against an emulator enforcing App Check,
//                                      each getting the app's token: the exchanges they made, per round (a new app each)
//   app-check-bench launch           one such process (FIREBASE_AUTH_EMULATOR_HOST, APP_ID, APP_CHECK_DEBUG_TOKEN)
let arguments = CommandLine.arguments
let secret = "B3F1C1E2-1D0A-4C55-9F00-7E0D0C0FFEE1"
let projectID = "demo-keyring-auth"

func options(appID: String) -> AuthAppOptions {
    AuthAppOptions(apiKey: "AIza-app-check-bench", appID: appID, projectID: projectID)
}

/// A provider whose token never changes: the kept token's cost alone.
struct FixedProvider: AppCheckProvider {
    func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        completion(AppCheckToken(token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2ln", expirationDate: Date() + 3600), nil)
    }
}

/// `count` runs of `program launch` started together, their results once all have ended.
nonisolated func launchTogether(_ count: Int, of program: String, environment: [String: String]) async throws -> [Subprocess.Result] {
    try await withThrowingTaskGroup(of: Subprocess.Result.self) { group in
        for _ in 0..<count {
            group.addTask { try await Subprocess.run(program, ["launch"], environment: environment, limit: .seconds(120)) }
        }
        var results: [Subprocess.Result] = []
        for try await result in group { results.append(result) }
        return results
    }
}

switch arguments.dropFirst().first {
case "cached":
    let runs = Int(arguments.dropFirst(2).first ?? "") ?? 100_000
    let app = options(appID: "1:42:linux:cached")
    let storage = AppCheckTokenStorage(store: InMemoryStore(), appName: app.appName, projectID: projectID, appID: app.appID, group: nil)
    let appCheck = AppCheck(appName: app.appName, provider: FixedProvider(), storage: storage, runtimeDirectory: nil) { false }
    _ = await appCheck.tokenForAuthRequest()
    let clock = ContinuousClock()
    var bytes = 0
    let elapsed = await clock.measure {
        for _ in 0..<runs { bytes &+= await appCheck.tokenForAuthRequest().utf8.count }
    }
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    print(String(format: "| a kept token's `X-Firebase-AppCheck` value, per request | %.2f µs (mean of %d; %d bytes) |",
        nanoseconds / Double(runs) / 1000, runs, bytes / runs))

case "launch":
    let environment = ProcessInfo.processInfo.environment
    guard let appID = environment["APP_ID"], let debugToken = environment["APP_CHECK_DEBUG_TOKEN"] else {
        print("launch needs APP_ID and APP_CHECK_DEBUG_TOKEN")
        exit(2)
    }
    let appCheck = AppCheck.debug(options: options(appID: appID), debugToken: debugToken, store: SandboxStore.automatic())
    do {
        let token = try await appCheck.token(forcingRefresh: false)
        print("token until \(token.expirationDate)")
    } catch {
        print("no token: \(error)")
        exit(1)
    }

case "launches":
    let count = Int(arguments.dropFirst(2).first ?? "") ?? 16
    let rounds = Int(arguments.dropFirst(3).first ?? "") ?? 5
    let emulator = AuthEmulator(configuration: .init(port: 0, appCheck: .init(enforcesOnAuth: true, debugTokens: [secret])))
    let address = try await emulator.start()
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).path
    for round in 1...rounds {
        let appID = "1:42:linux:launch\(round)x\(UUID().uuidString.prefix(6))"
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = address.description
        environment["APP_ID"] = appID
        environment["APP_CHECK_DEBUG_TOKEN"] = secret
        let before = emulator.appCheckExchanges.count
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await launchTogether(count, of: me, environment: environment)
        let seconds = (clock.now - started).components
        let failed = results.filter { $0.status != 0 }.count
        let exchanges = emulator.appCheckExchanges.dropFirst(before).filter { $0.appID == appID }.count
        print("| round \(round): \(count) processes of one app launching together | \(exchanges) exchange(s); \(failed) failed; "
            + String(format: "%.2f s", Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18) + " |")
    }
    await emulator.stop()

default:
    print("usage: app-check-bench cached [RUNS] | launches [N] [ROUNDS] | launch")
    exit(2)
}
