import SystemSupport

// Idleness: with no call in progress and no client watching or following for the idle timeout, the broker gives its
// name back and exits (``Activity``); and it exits whenever its session bus goes away (``BusServer``).
extension Broker {
    /// Gives the name back, so that the next call activates a new broker, then exits once every call that
    /// reached this one is answered: calls sent before the release arrive before the bus's reply to it, so
    /// they are dispatched before ``BusServer/afterPendingMessages(_:)`` runs. While another connection is queued for
    /// the name, it keeps the name and looks again at the next idle time: released, the name would go to that
    /// connection, and with it the next app's password. A bus that went away meanwhile ends the broker at once.
    func becameIdle() {
        guard let bus = currentBus else { return }
        guard !bus.isClosed else {
            logger.info("Idle, and the session bus has gone away: exiting")
            bus.stop()
            return
        }
        let queued: [String]
        do throws(BrokerStartFailure) {
            queued = try bus.othersQueued(for: BrokerInterface.name)
        } catch {
            logger.warning("Idle, but keeping the name: the bus did not say who is queued for it", metadata: ["error": "\(error)"])
            activity.start { [weak self] in self?.becameIdle() }
            return
        }
        guard queued.isEmpty else {
            logger.warning("Idle, but keeping the name: other connections are queued for it and would receive the calls meant for the broker",
                metadata: ["queued": "\(queued.joined(separator: " "))"])
            activity.start { [weak self] in self?.becameIdle() }
            return
        }
        logger.info("Idle: giving the name back and exiting")
        bus.releaseName(BrokerInterface.name)
        stopWhenDrained(bus)
    }

    private func stopWhenDrained(_ bus: BusServer) {
        activity.whenDrained { [self] in
            bus.afterPendingMessages { [self] in
                if activity.isDrained { bus.stop() } else { stopWhenDrained(bus) }
            }
        }
    }
}
