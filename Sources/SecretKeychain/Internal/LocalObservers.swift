import Dispatch
import Synchronization

/// The observations of a store that learns of changes only from its own writes (``InMemoryStore``, and
/// ``SecretPortalStore``'s file keyring, which sends no signals): each change is queued for the observers
/// whose scope it concerns, one at a time and in order, on a queue of its own; for each change,
/// observations are told in the order they started.
final class LocalObservers: Sendable {
    private struct Observer {
        weak var observation: KeychainObservation?
        var scope: KeychainScope
    }

    private let observers = Mutex<[Int: Observer]>([:])
    private let nextObserverID = Atomic(0)
    /// Where changes are delivered, one at a time and in the order they were announced.
    private let delivery: DispatchQueue

    init(label: String) {
        delivery = DispatchQueue(label: label)
    }

    /// A new observation of `scope`, told of every change announced from now on until it is cancelled.
    func observe(in scope: KeychainScope, _ handler: @escaping @Sendable (KeychainChange) -> Void) -> KeychainObservation {
        let observation = KeychainObservation(handler: handler)
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = Observer(observation: observation, scope: scope) }
        observation.whenCancelled { [weak self] in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return observation
    }

    /// Queues `changes` for the observers whose scope they concern. Call it while the store's items are
    /// locked, so that changes are queued in the order they were made.
    func announce(_ changes: [KeychainChange]) {
        let observers = observers.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers {
            guard let observation = observer.observation else { continue }
            for change in changes where observer.scope.contains(change.key) {
                delivery.async { observation.deliver(change) }
            }
        }
    }
}
