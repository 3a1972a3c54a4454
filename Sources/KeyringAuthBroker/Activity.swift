import Dispatch
import Synchronization

/// When the broker is idle: no call in progress and no client watching, for ``idleTimeout``. Then
/// the broker gives its name back (the next call activates a new one) and exits once the calls
/// that reached it meanwhile are answered; or, while another connection is queued for the name,
/// keeps it and starts counting again (``start(onIdle:)``).
final class Activity: Sendable {
    let idleTimeout: Duration?
    private let queue = DispatchQueue(label: "keyring-auth-broker.idle")
    private let state = Mutex(State())

    private struct State {
        var calls = 0
        var watches = 0
        var generation = 0
        var onIdle: (@Sendable () -> Void)?
        var whenDrained: (@Sendable () -> Void)?
    }

    /// `nil`: never idle.
    init(idleTimeout: Duration?) {
        self.idleTimeout = idleTimeout
    }

    /// Starts counting; `onIdle` runs once, on a queue of its own, when the broker has been idle for the timeout.
    func start(onIdle: @escaping @Sendable () -> Void) {
        state.withLock { $0.onIdle = onIdle }
        rearm()
    }

    func begin() { state.withLock { $0.calls += 1; $0.generation += 1 } }

    func end() {
        let drained = state.withLock { state -> (@Sendable () -> Void)? in
            state.calls -= 1
            guard state.calls == 0, let drained = state.whenDrained else { return nil }
            state.whenDrained = nil
            return drained
        }
        drained?()
        rearm()
    }

    func watchBegan() { state.withLock { $0.watches += 1; $0.generation += 1 } }

    func watchEnded() {
        state.withLock { $0.watches -= 1 }
        rearm()
    }

    /// Whether no call is in progress.
    var isDrained: Bool { state.withLock { $0.calls == 0 } }

    /// Runs `body` when no call is in progress: now, or when the last one ends.
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.calls > 0 else { return true }
            state.whenDrained = body
            return false
        }
        if now { body() }
    }

    /// Schedules the idle check for this moment's activity: it fires only if nothing began since.
    private func rearm() {
        guard let idleTimeout else { return }
        let generation = state.withLock { state -> Int? in
            guard state.calls == 0, state.watches == 0 else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        let (seconds, attoseconds) = idleTimeout.components
        let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let onIdle = self.state.withLock { state -> (@Sendable () -> Void)? in
                guard state.generation == generation, state.calls == 0, state.watches == 0 else { return nil }
                defer { state.onIdle = nil }
                return state.onIdle
            }
            onIdle?()
        }
    }
}
