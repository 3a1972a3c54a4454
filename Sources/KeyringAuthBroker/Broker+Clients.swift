import Foundation
import KeyringAuth
import SystemSupport

// The clients: who each is (identified once, from its process, and remembered while it is on the bus), and what is
// given back when one leaves. Every table of a client's things checks ``ClientGate`` as it adds one.
extension Broker {
    /// Who `sender` is: from the cache, or from its process, which must still hold the connection
    /// once its files are read (so that the process ID was not reused meanwhile).
    func identify(_ sender: String) async throws(BrokerError) -> CallerIdentity {
        if let identity = state.withLock({ $0.callers[sender] }) { return identity }
        guard let bus = currentBus else { throw BrokerError(.failed, "The broker is not started yet; call again.") }
        let identity = try await blocking.run { () throws(BrokerError) -> CallerIdentity in
            do {
                let (pid, pidfd) = try bus.process(of: sender)
                defer { if let pidfd { close(pidfd) } }
                let identity = try CallerIdentification.identify(pid: pid, pidfd: pidfd)
                guard bus.hasOwner(sender) else { throw BrokerError(.accessDenied, "The caller left the bus.") }
                return identity
            } catch let error as BrokerError {
                throw error
            } catch {
                throw BrokerError(.accessDenied, "The broker cannot tell who is calling (\(error)), so it refuses the call.")
            }
        }
        logger.debug("Identified a client", metadata: [
            "client": "\(sender)", "caller": "\(identity.caller)", "network": "\(identity.sharesNetwork)",
        ])
        // A client that left meanwhile is not remembered: peerLeft has already forgotten it.
        try state.withLock { state throws(BrokerError) in
            try clients.admit(sender)
            state.callers[sender] = identity
        }
        return identity
    }

    /// A client left the bus: it is marked gone first (``ClientGate``), then forgotten, and everything it held ends:
    /// its watches and follows, its steps, its browser sign-ins, and the scopes only its app used. Runs on the main
    /// thread; what holds an `Auth` is let go of on the registry's queue.
    func peerLeft(_ name: String) {
        clients.markLeft(name)
        let (emptied, released) = state.withLock { state -> ([(Auth, AuthListenerHandle)], [Auth]) in
            let identity = state.callers.removeValue(forKey: name)
            var (emptied, released) = removeWatches(of: name, from: &state)
            // The app's last connection: the scopes only it used are given back.
            if let app = identity?.app, !state.callers.values.contains(where: { $0.app == app }) {
                released += state.scopes.appLeft(app)
            }
            return (emptied, released)
        }
        for (auth, handle) in emptied { auth.removeUserDidChangeListener(handle) }
        letGo(released + emptied.map(\.0))
        for _ in 0..<itemFollows.clientLeft(name) { activity.watchEnded() }
        browserFlows.clientLeft(name)
        letGo(pendingSteps.clientLeft(name))
    }
}
