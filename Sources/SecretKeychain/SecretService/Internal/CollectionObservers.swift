import Synchronization
import SystemSupport

/// The observations of one ``SecretServiceStore``, all served by one ``CollectionWatcher`` of the whole collection
/// (one thread, one bus connection): each change goes to the observations whose scope holds its key, in the order they
/// began. The watcher starts with the first observation and stops with the last; when it ends by itself (the session
/// bus went away), every observation ends with its reason.
///
/// A process that follows many scopes, or begins and ends observations all day (a broker's clients, an app that
/// switches its access group), so holds one thread and one connection, never one per scope.
final class CollectionObservers: Sendable {
    private struct Observer {
        weak var observation: KeychainObservation?
        let scope: KeychainScope
    }

    private struct State {
        var observers: [Int: Observer] = [:]
        var nextID = 0
        /// The watcher's own observation of every item, while one runs.
        var source: KeychainObservation?

        mutating func add(_ observation: KeychainObservation, _ scope: KeychainScope) -> Int {
            nextID += 1
            observers[nextID] = Observer(observation: observation, scope: scope)
            return nextID
        }
    }

    private let state = Mutex(State())
    /// Held while a watcher begins (bounded D-Bus calls), so that two first observations start one watcher.
    private let starting = RecursiveLock()

    /// A new observation of `scope` in `store`'s collection, told of every change from when this returns until it
    /// is cancelled or released.
    func observe(
        in scope: KeychainScope, of store: SecretServiceStore, _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) throws(KeychainError) -> KeychainObservation {
        let observation = KeychainObservation(handler: handler)
        starting.lock()
        defer { starting.unlock() }
        if let id = state.withLock({ state in state.source.map { _ in state.add(observation, scope) } }) {
            observation.whenCancelled { [weak self] in self?.remove(id) }
            return observation
        }
        let source = KeychainObservation { [weak self] change in self?.dispatch(change) }
        let watcher = try CollectionWatcher(store: store, scope: .all, observation: source)
        try watcher.begin()
        source.whenCancelled { watcher.stop() }
        try watcher.startThread()
        source.whenEnded { [weak self, weak source] reason in
            guard let source else { return }
            self?.ended(source, reason)
        }
        let id = state.withLock { state in
            state.source = source
            return state.add(observation, scope)
        }
        observation.whenCancelled { [weak self] in self?.remove(id) }
        return observation
    }

    /// Tells each observation whose scope holds the change's key, in the order they began.
    private func dispatch(_ change: KeychainChange) {
        let recipients = state.withLock { state in
            state.observers.sorted { $0.key < $1.key }.compactMap { $0.value.scope.contains(change.key) ? $0.value.observation : nil }
        }
        for observation in recipients { observation.deliver(change) }
    }

    /// Forgets an observation that ended; the watcher stops with the last one.
    private func remove(_ id: Int) {
        let stopping = state.withLock { state -> KeychainObservation? in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return nil }
            defer { state.source = nil }
            return state.source
        }
        stopping?.cancel()
    }

    /// The watcher ended by itself: so does every observation it served, with its reason.
    private func ended(_ source: KeychainObservation, _ reason: KeychainError) {
        let observers = state.withLock { state -> [KeychainObservation] in
            guard state.source === source else { return [] }
            state.source = nil
            defer { state.observers = [:] }
            return state.observers.sorted { $0.key < $1.key }.compactMap(\.value.observation)
        }
        for observation in observers { observation.end(reason) }
    }
}
