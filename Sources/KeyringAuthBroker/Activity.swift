import CProcessControl
import Dispatch
import Synchronization
import SystemSupport

/// When the broker is idle: no call in progress and no client watching, for ``idleTimeout``. Then
/// the broker gives its name back (the next call activates a new one) and exits once the calls
/// that reached it meanwhile are answered; or, while another connection is queued for the name,
/// keeps it and starts counting again (``start(onIdle:)``).
///
/// Once a burst of calls is over (no call for ``quietPeriod``), the broker gives the free pages of its heap back to the
/// system: glibc keeps what the busiest moment of a burst took in each of its arenas (one per thread that met another in
/// malloc, up to eight per core), and a service that runs for weeks would otherwise stay at its peak.
final class Activity: Sendable {
    let idleTimeout: Duration?
    /// How many malloc arenas the broker keeps (``BrokerCommand`` sets it before any thread starts).
    static let mallocArenas: Int32 = 2
    /// How long no call runs before the heap's free pages are given back.
    static let quietPeriod = Duration.seconds(1)
    /// How many quiet periods after the first trim the heap's free pages are given back once more.
    static let settlingPeriods = 5
    private let queue = DispatchQueue(label: "keyring-auth-broker.idle")
    private let state = Mutex(State())

    private struct State {
        var calls = 0
        var callsBegun = 0
        var quietCheckPending = false
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

    func begin() { state.withLock { $0.calls += 1; $0.callsBegun += 1; $0.generation += 1 } }

    func end() {
        let drained = state.withLock { state -> (@Sendable () -> Void)? in
            state.calls -= 1
            guard state.calls == 0, let drained = state.whenDrained else { return nil }
            state.whenDrained = nil
            return drained
        }
        drained?()
        rearm()
        checkQuietLater()
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

    /// Gives the heap's free pages back once no call has begun or run for ``quietPeriod``, and again after
    /// ``settlingPeriods`` more quiet periods (what a burst leaves to do after its last call: the keychain watcher's
    /// reads, signals to watchers, departed clients' scopes). One check pending at a time.
    private func checkQuietLater(round: Int = 0) {
        let begun = state.withLock { state -> Int? in
            guard state.calls == 0, !state.quietCheckPending else { return nil }
            state.quietCheckPending = true
            return state.callsBegun
        }
        guard let begun else { return }
        let delay = round == 0 ? Self.quietPeriod : Self.quietPeriod * Self.settlingPeriods
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay.inMilliseconds))) { [weak self] in
            guard let self else { return }
            let (quiet, idle) = self.state.withLock { state -> (Bool, Bool) in
                state.quietCheckPending = false
                return (state.calls == 0 && state.callsBegun == begun, state.calls == 0)
            }
            if quiet {
                _ = kra_return_free_memory()
                if round == 0 { self.checkQuietLater(round: 1) }
            } else if idle {
                self.checkQuietLater()  // calls came and went meanwhile: the quiet starts from the last
            }  // else a call runs; its end checks again
        }
    }
}
