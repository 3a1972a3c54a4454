import FoundationEssentials
import Synchronization
import SystemSupport

/// A running observation of a ``KeychainStore``'s changes, from
/// ``KeychainStore/observeChanges(in:_:)``. Keep it for as long as you want changes:
/// ``cancel()`` or releasing it ends the observation. It can also end by itself, when its source
/// of changes is gone for good (the session bus went away): ``whenEnded(_:)`` tells why.
public final class KeychainObservation: Sendable {
    /// Taken around every call of the handler, by ``cancel()`` and when the observation ends, so
    /// that afterwards the handler is not running and is never called again. Recursive, so that a
    /// handler may cancel.
    private let delivery = RecursiveLock()
    private let state: Mutex<State>

    private struct State {
        var handler: (@Sendable (KeychainChange) -> Void)?
        var onCancel: (@Sendable () -> Void)?
        var onEnd: [@Sendable (KeychainError) -> Void] = []
        var endReason: KeychainError?
    }

    init(handler: @escaping @Sendable (KeychainChange) -> Void) {
        state = Mutex(State(handler: handler))
    }

    /// Whether the observation is over: ``cancel()`` was called, it was released, or it ended by
    /// itself (``endReason``). No change is reported any more.
    public var isCancelled: Bool { state.withLock { $0.handler == nil } }

    /// Why the observation ended by itself, or `nil` while it runs or when it was cancelled.
    public var endReason: KeychainError? { state.withLock { $0.endReason } }

    /// Ends the observation: the handler is not running when this returns (unless it is the
    /// caller) and is never called again. Calling it again does nothing. ``whenEnded(_:)``'s
    /// handlers are not called.
    public func cancel() {
        delivery.lock()
        let onCancel = state.withLock { state in
            defer { state = State(endReason: state.endReason) }
            return state.handler == nil ? nil : state.onCancel
        }
        delivery.unlock()
        onCancel?()
    }

    deinit { cancel() }

    /// Calls `handler` once, with the reason, if the observation ends by itself (for example
    /// ``KeychainError/noSessionBus(detail:)`` when the session bus goes away); at once if it
    /// already has. Never called after ``cancel()`` or release. Call it from any thread; `handler`
    /// runs on a thread of the store's and must not block.
    public func whenEnded(_ handler: @escaping @Sendable (KeychainError) -> Void) {
        let reason = state.withLock { state -> KeychainError? in
            if let reason = state.endReason { return reason }
            if state.handler != nil { state.onEnd.append(handler) }
            return nil
        }
        if let reason { handler(reason) }
    }

    /// What stops the source of changes; run once, by ``cancel()`` or when the observation ends.
    /// Runs at once if it is already over.
    func whenCancelled(_ stop: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state in
            if state.handler == nil { return true }
            state.onCancel = stop
            return false
        }
        if cancelled { stop() }
    }

    /// Ends the observation because its source is gone for good: as ``cancel()``, then tells the
    /// ``whenEnded(_:)`` handlers. Does nothing once the observation is over.
    func end(_ reason: KeychainError) {
        delivery.lock()
        let ending = state.withLock { state -> (stop: (@Sendable () -> Void)?, handlers: [@Sendable (KeychainError) -> Void])? in
            guard state.handler != nil else { return nil }
            defer { state = State(endReason: reason) }
            return (state.onCancel, state.onEnd)
        }
        delivery.unlock()
        guard let ending else { return }
        ending.stop?()
        for handler in ending.handlers { handler(reason) }
    }

    /// Calls the handler with `change`, unless the observation is over.
    func deliver(_ change: KeychainChange) {
        delivery.lock()
        defer { delivery.unlock() }
        guard let handler = state.withLock({ $0.handler }) else { return }
        handler(change)
    }
}
