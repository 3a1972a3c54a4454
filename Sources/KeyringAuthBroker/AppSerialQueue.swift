import Synchronization

/// Runs the work of each app one at a time, in the order it came, without holding a thread while work waits: what a
/// check and a write must do together for one app (``KeychainQuota``'s count and the new item), whatever its
/// connections send at once. Apps do not wait for each other; an app with nothing running or waiting keeps no entry.
final class AppSerialQueue: Sendable {
    private struct Line {
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// The apps with work running, and what waits behind it.
    private let lines = Mutex<[String: Line]>([:])

    /// Runs `body` once `app`'s work before it has ended.
    func run<Result: Sendable>(for app: String, _ body: () async throws -> Result) async throws -> Result {
        await enter(app)
        defer { leave(app) }
        return try await body()
    }

    private func enter(_ app: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let runsNow = lines.withLock { lines -> Bool in
                guard lines[app] != nil else {
                    lines[app] = Line()
                    return true
                }
                lines[app]!.waiting.append(continuation)
                return false
            }
            if runsNow { continuation.resume() }
        }
    }

    private func leave(_ app: String) {
        let next = lines.withLock { lines -> CheckedContinuation<Void, Never>? in
            guard let line = lines[app], !line.waiting.isEmpty else {
                lines[app] = nil
                return nil
            }
            return lines[app]!.waiting.removeFirst()
        }
        next?.resume()
    }

    /// How many apps have work running.
    var appsRunning: Int { lines.withLock { $0.count } }
}
