import ArgumentParser
import Foundation
import SecretKeychain
import SystemSupport

/// `keyring-auth-bench store-calls`: writes and reads of one item of the shape `Auth` keeps, through one store, timed
/// call by call, for the sandbox figures (`Benchmarks/sandbox` runs it on the host and inside `dbus/run-as-flatpak`):
/// a group's user item through the Secret Service directly or through the broker, an app's own item in its portal
/// keyring. Prints one line: `STORE write MEDIAN P90 read MEDIAN P90` in milliseconds.
struct StoreCalls: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store-calls", shouldDisplay: false)

    enum Store: String, ExpressibleByArgument {
        case secretService = "secret-service"
        case broker
        case portal
    }

    @Option var store: Store
    @Option var count = 100
    @Option var size = 1500

    func run() async throws {
        let (store, key) = try makeStore()
        let figures = try await OwnThread.run(name: "store-calls") { [count, size] () -> Result<String, KeychainError> in
            Result { () throws(KeychainError) -> String in
                var writes: [Double] = []
                var reads: [Double] = []
                // One of each first: connections, the broker's activation, the portal's key.
                try store.setData(benchPayload(0, size: size), for: key, label: "KeyringAuth benchmark")
                _ = try store.data(for: key)
                for number in 1...count {
                    let payload = benchPayload(number, size: size)
                    var started = monotonicNanoseconds()
                    try store.setData(payload, for: key, label: "KeyringAuth benchmark")
                    writes.append(Double(monotonicNanoseconds() - started) / 1_000_000)
                    started = monotonicNanoseconds()
                    guard try store.data(for: key) == payload else {
                        throw .corruptItem("\(key)", reason: "the benchmark read back another value than it wrote")
                    }
                    reads.append(Double(monotonicNanoseconds() - started) / 1_000_000)
                }
                try store.removeData(for: key)
                func percentiles(_ values: [Double]) -> String {
                    let sorted = values.sorted()
                    return String(format: "%.2f %.2f", sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
                }
                return "\(self.store.rawValue) write \(percentiles(writes)) read \(percentiles(reads))"
            }
        }
        print(try figures.get())
    }

    /// The store and a key of `Auth`'s shape it serves.
    private func makeStore() throws -> (any KeychainStore, KeychainKey) {
        let group = try AccessGroup("TEAMID.com.example.bench")
        let groupKey = KeychainKey(service: "AIza-bench", account: "firebase_auth_firebase_user", accessGroup: group)
        switch store {
        case .secretService: return (SecretServiceStore(), groupKey)
        case .broker: return (BrokerKeychainStore(), groupKey)
        case .portal: return (SecretPortalStore(), KeychainKey(service: "firebase_auth_1:1:linux:bench", account: "firebase_auth_1_bench_firebase_user"))
        }
    }
}
