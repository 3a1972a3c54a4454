import ArgumentParser
import Dispatch
import Foundation
import SecretKeychain
import Synchronization
import SystemSupport

/// One client of the side-by-side benchmark: `SecretServiceStore` behind the same line protocol as
/// `Benchmarks/clients/libsecret-client.c` and `python-client.py`: `write N` and `read N`, each
/// answered `ok <nanoseconds for the N calls>` or `error <why>`, after `ready <name> <version>` once
/// warmed up. Its one item is a key in an access group of its own.
struct StoreWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store-worker", shouldDisplay: false)

    enum API: String, ExpressibleByArgument {
        /// The blocking calls, made on the worker's own thread.
        case sync
        /// The `async` calls (the store's own queue does the blocking), as `Auth` makes them.
        case async
    }

    @Option var api: API
    @Option var size: Int

    func run() async throws {
        let worker = StoreClient(api: api, size: size)
        // Reading standard input and the blocking calls get a thread of their own, never the cooperative pool.
        try await OwnThread.run(name: "store-worker") { worker.serve() }
    }
}

/// The calls the worker times, in the API it was asked for.
private final class StoreClient: Sendable {
    let api: StoreWorker.API
    let size: Int
    let store = SecretServiceStore()
    let key = KeychainKey(
        service: "org.keyringauth.Bench", account: "SecretServiceStore",
        accessGroup: try! AccessGroup("BENCH.keyringauth.compare"))
    private let written = Atomic(0)
    /// The payload written last, kept as the C client keeps its buffer: a read is checked with
    /// one comparison, so the figures are the store's, not the making of the expected value.
    private let lastPayload = Mutex(Data())

    init(api: StoreWorker.API, size: Int) {
        self.api = api
        self.size = size
    }

    /// Answers commands until standard input ends or says `quit`.
    func serve() {
        do {
            try run("write", 1)
            try run("read", 1)
        } catch {
            answer("error \(error)")
            return
        }
        answer("ready SecretServiceStore-\(api.rawValue) this-build")
        while let line = readLine(), line != "quit" {
            let words = line.split(separator: " ")
            guard words.count == 2, let count = Int(words[1]), count > 0 else {
                answer("error unknown command: \(line)")
                continue
            }
            let started = monotonicNanoseconds()
            do {
                try run(String(words[0]), count)
                answer("ok \(monotonicNanoseconds() - started)")
            } catch {
                answer("error \(error)")
            }
        }
    }

    private func run(_ command: String, _ count: Int) throws {
        let label = "KeyringAuth benchmark (SecretServiceStore)"
        switch (command, api) {
        case ("write", .sync):
            for _ in 0..<count { try store.setData(nextPayload(), for: key, label: label) }
        case ("write", .async):
            try awaitOnThisThread { [self] in
                for _ in 0..<count { try await store.setData(nextPayload(), for: key, label: label) }
            }
        case ("read", .sync):
            for _ in 0..<count { try check(store.data(for: key)) }
        case ("read", .async):
            try awaitOnThisThread { [self] in
                for _ in 0..<count { try check(await store.data(for: key)) }
            }
        default:
            throw ValidationError("unknown command: \(command)")
        }
    }

    private func nextPayload() -> Data {
        let payload = benchPayload(written.add(1, ordering: .relaxed).newValue, size: size)
        lastPayload.withLock { $0 = payload }
        return payload
    }

    /// Every read must return what was written last.
    private func check(_ data: Data?) throws {
        let expected = lastPayload.withLock { $0 }
        guard data == expected else {
            throw ValidationError("read \(data?.count ?? 0) bytes, not the \(expected.count) written last")
        }
    }

    private func answer(_ line: String) {
        FileHandle.standardOutput.write(Data((line.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    }
}

/// Runs `body` in a task and blocks this thread (never one of the cooperative pool's) until it ends.
func awaitOnThisThread(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: Sendable {
        let result = Mutex<Result<Void, any Error>>(.success(()))
        let done = DispatchSemaphore(value: 0)
    }
    let outcome = Outcome()
    Task {
        do { try await body() } catch { outcome.result.withLock { $0 = .failure(error) } }
        outcome.done.signal()
    }
    outcome.done.wait()
    try outcome.result.withLock { $0 }.get()
}

/// The secret every client of the benchmark writes: a 10-digit counter, then `x` up to `size` bytes.
func benchPayload(_ number: Int, size: Int) -> Data {
    let digits = String(number % 10_000_000_000)
    let counter = String(repeating: "0", count: 10 - digits.count) + digits
    return Data((counter + String(repeating: "x", count: max(0, size - counter.count))).utf8)
}
