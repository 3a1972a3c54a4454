import Synchronization

/// The calls each app has in progress, bounded by ``share``: each may hold a thread (an HTTP request, a keychain
/// call) for up to its time limit, so an app that sends many at once is refused the surplus at once instead of
/// growing the broker.
final class CallsInProgress: Sendable {
    static let share = AppShare(perApp: 64, total: 256, reserved: 64)

    private let counts = Mutex<(byApp: [String: Int], total: Int)>(([:], 0))

    /// Counts a call of `app` until ``end(_:)``, or refuses it.
    func begin(_ app: String) throws(BrokerError) {
        let admitted = counts.withLock { counts -> Bool in
            guard Self.share.admits(held: counts.byApp[app, default: 0], inUse: counts.total) else { return false }
            counts.byApp[app, default: 0] += 1
            counts.total += 1
            return true
        }
        guard admitted else {
            throw BrokerError(.failed, "This app has \(Self.share.perApp) calls in progress, the most the broker runs for one app at once "
                + "(or the broker is busy with other apps' calls); wait for an answer before sending more.")
        }
    }

    func end(_ app: String) {
        counts.withLock { counts in
            let held = counts.byApp[app, default: 0]
            counts.byApp[app] = held > 1 ? held - 1 : nil
            counts.total -= 1
        }
    }
}
