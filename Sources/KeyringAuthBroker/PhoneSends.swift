import KeyringAuth
import Synchronization

/// The SMS codes the broker has had sent for each app, bounded against SMS pumping (an app that has codes sent to
/// numbers that charge for them): per app (``CallerIdentity/app``), one send at a time to a number (from its page to
/// Firebase's answer), a new send to a number no sooner than ``Bounds/resendInterval`` after the last, and at most
/// ``Bounds/sendsPerWindow`` sends in any ``Bounds/window``. A send is reserved before its page opens, so that calls
/// that come at once are counted as they are admitted; it counts once Firebase has sent the code (``sent(_:)``), and a
/// send that never happened (``cancelled(_:)``) gives its place back. A second factor's number, which Firebase masks,
/// is known by its factor's uid. Times come from ``now``, which tests set.
final class PhoneSends: Sendable {
    struct Bounds: Sendable {
        var resendInterval: Duration = .seconds(30)
        var sendsPerWindow = 10
        var window: Duration = .seconds(3600)
    }

    /// A send admitted and under way: ended by ``sent(_:)`` or ``cancelled(_:)``.
    struct Reservation: Hashable, Sendable {
        let app: String
        let number: String
    }

    private struct AppSends {
        /// The numbers a send is under way to.
        var underWay: Set<String> = []
        /// When each number was last sent a code, within the resend interval.
        var lastSent: [String: ContinuousClock.Instant] = [:]
        /// When the app's codes were sent, within the window.
        var sent: [ContinuousClock.Instant] = []

        var isEmpty: Bool { underWay.isEmpty && lastSent.isEmpty && sent.isEmpty }
    }

    static let bounds = Bounds()

    let bounds: Bounds
    private let now: @Sendable () -> ContinuousClock.Instant
    private let apps = Mutex<[String: AppSends]>([:])

    init(bounds: Bounds = PhoneSends.bounds, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.bounds = bounds
        self.now = now
    }

    /// Admits a send of `app` to `number` (E.164, or `factor:UID` for a second factor), or refuses it with Firebase's
    /// `ERROR_TOO_MANY_REQUESTS`.
    func reserve(app: String, number: String) throws(BrokerError) -> Reservation {
        let now = now()
        let refusal = apps.withLock { apps -> String? in
            var sends = apps[app, default: AppSends()]
            forget(before: now, in: &sends)
            if sends.underWay.contains(number) {
                return "A code is already being sent to this number for this app (its verification page is open, or Firebase has not "
                    + "answered yet); finish that verification first, or wait for it to end."
            }
            if let last = sends.lastSent[number] {
                let wait = bounds.resendInterval - (now - last)
                return "A code was sent to this number less than \(Self.seconds(bounds.resendInterval)) ago; ask for another no sooner than "
                    + "\(Self.seconds(wait)) from now, and use the one sent meanwhile."
            }
            guard sends.sent.count + sends.underWay.count < bounds.sendsPerWindow else {
                let wait = sends.sent.first.map { bounds.window - (now - $0) } ?? bounds.window
                return "This app has had \(bounds.sendsPerWindow) SMS codes sent within \(Self.seconds(bounds.window)), the most the broker sends "
                    + "for one app; the next may be asked for in \(Self.seconds(wait))."
            }
            sends.underWay.insert(number)
            apps[app] = sends
            return nil
        }
        if let refusal { throw Broker.brokerError(from: AuthError(.tooManyRequests, refusal)) }
        return Reservation(app: app, number: number)
    }

    /// Firebase sent the code of `reservation`: it counts, and starts the number's resend interval.
    func sent(_ reservation: Reservation) {
        let now = now()
        apps.withLock { apps in
            apps[reservation.app]?.underWay.remove(reservation.number)
            apps[reservation.app, default: AppSends()].lastSent[reservation.number] = now
            apps[reservation.app, default: AppSends()].sent.append(now)
        }
    }

    /// No code was sent for `reservation` (its page failed or was closed, Firebase refused it): it gives its place back.
    func cancelled(_ reservation: Reservation) {
        apps.withLock { apps in
            apps[reservation.app]?.underWay.remove(reservation.number)
            if apps[reservation.app]?.isEmpty == true { apps[reservation.app] = nil }
        }
    }

    /// How many apps have sends under way or counted.
    var appsCounted: Int {
        let now = now()
        return apps.withLock { apps in
            for app in apps.keys {
                forget(before: now, in: &apps[app]!)
                if apps[app]!.isEmpty { apps[app] = nil }
            }
            return apps.count
        }
    }

    /// Drops what no bound counts any more.
    private func forget(before now: ContinuousClock.Instant, in sends: inout AppSends) {
        sends.lastSent = sends.lastSent.filter { now - $0.value < bounds.resendInterval }
        sends.sent.removeAll { now - $0 >= bounds.window }
    }

    /// A duration in whole seconds (rounded up), as a message says it.
    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(max(0, seconds + (attoseconds > 0 ? 1 : 0))) s"
    }
}
