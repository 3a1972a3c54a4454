import Foundation
import Synchronization

/// A running observation of a ``KeychainStore``'s changes, from
/// ``KeychainStore/observeChanges(in:_:)``. Keep it for as long as you want changes:
/// ``cancel()`` or releasing it ends the observation.
public final class KeychainObservation: Sendable {
    /// Taken around every call of the handler and by ``cancel()``, so that once ``cancel()`` returns
    /// the handler is not running and is never called again. Recursive, so that a handler may cancel.
    private let delivery = NSRecursiveLock()
    private let state: Mutex<State>

    private struct State {
        var handler: (@Sendable (KeychainChange) -> Void)?
        var onCancel: (@Sendable () -> Void)?
    }

    init(handler: @escaping @Sendable (KeychainChange) -> Void) {
        state = Mutex(State(handler: handler))
    }

    /// Whether ``cancel()`` was called (or the observation was released).
    public var isCancelled: Bool { state.withLock { $0.handler == nil } }

    /// Ends the observation: the handler is not running when this returns (unless it is the
    /// caller) and is never called again. Calling it again does nothing.
    public func cancel() {
        delivery.lock()
        let onCancel = state.withLock { state in
            defer { state = State() }
            return state.handler == nil ? nil : state.onCancel
        }
        delivery.unlock()
        onCancel?()
    }

    deinit { cancel() }

    /// What stops the source of changes; run once, by ``cancel()``. Runs at once if already cancelled.
    func whenCancelled(_ stop: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state in
            if state.handler == nil { return true }
            state.onCancel = stop
            return false
        }
        if cancelled { stop() }
    }

    /// Calls the handler with `change`, unless the observation was cancelled.
    func deliver(_ change: KeychainChange) {
        delivery.lock()
        defer { delivery.unlock() }
        guard let handler = state.withLock({ $0.handler }) else { return }
        handler(change)
    }
}
