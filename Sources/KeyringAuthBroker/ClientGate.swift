import Synchronization

/// The one record of which clients have left the bus, that every table keeping something for a client checks: the
/// callers, watches, holds on scopes, follows, steps and browser flows. A table checks ``hasLeft(_:)`` under its own
/// lock as it adds a client's thing, and ``Broker/peerLeft(_:)`` marks the client here (``markLeft(_:)``) before it
/// empties each table under that table's lock: whichever comes first, nothing is kept or started for a client that
/// has left. Locks are taken in that order only (a table's, then the gate's), never the other way.
final class ClientGate: Sendable {
    private let departed = Mutex(DepartedClients())

    func markLeft(_ client: String) { departed.withLock { $0.insert(client) } }

    func hasLeft(_ client: String) -> Bool { departed.withLock { $0.contains(client) } }

    /// Throws when `client` has left the bus: nothing is to be kept for it.
    func admit(_ client: String) throws(BrokerError) {
        guard !hasLeft(client) else { throw BrokerError(.failed, "The client left the bus.") }
    }
}
