import Synchronization

/// Values posted from any thread, taken in order by one reader that may wait for them: a
/// listener's calls, a child process's output lines.
package final class Mailbox<Value: Sendable>: Sendable {
    private struct State {
        var queued: [Value] = []
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Adds `value` after those already posted.
    package func post(_ value: Value) {
        wake { $0.queued.append(value) }
    }

    /// No value comes after those posted so far.
    package func close() {
        wake { $0.closed = true }
    }

    /// The values posted and not yet taken, left in place.
    package var queued: [Value] { state.withLock { $0.queued } }

    /// Whether ``close()`` was called: nothing more will be posted.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Takes the next value, waiting at most `limit` for one (a bound against hangs, not a
    /// measure of anything).
    ///
    /// - Throws: `Subprocess.Failure` when none was posted within `limit`, or the mailbox was closed.
    package func next(within limit: Duration = .seconds(30)) async throws -> Value {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: clock)
            self?.wake { _ in }
        }
        defer { timer.cancel() }
        while true {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if !state.queued.isEmpty || state.closed || clock.now >= deadline {
                        continuation.resume()
                    } else {
                        state.waiters.append(continuation)
                    }
                }
            }
            let (value, closed) = state.withLock { state in
                (state.queued.isEmpty ? nil : state.queued.removeFirst(), state.closed)
            }
            if let value { return value }
            if closed { throw Subprocess.Failure(description: "nothing more will come (closed)") }
            if clock.now >= deadline { throw Subprocess.Failure(description: "nothing came within \(limit)") }
        }
    }

    /// Takes values until one satisfies `predicate`, and returns it.
    ///
    /// - Throws: as ``next(within:)``, naming the values skipped.
    package func next(within limit: Duration = .seconds(30), where predicate: (Value) -> Bool) async throws -> Value {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var skipped: [Value] = []
        while true {
            do {
                let value = try await next(within: max(deadline - clock.now, .zero))
                if predicate(value) { return value }
                skipped.append(value)
            } catch {
                throw Subprocess.Failure(description: "\(error); skipped \(skipped)")
            }
        }
    }

    private func wake(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state in
            change(&state)
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
