import KeyringAuth
import Synchronization

/// The steps under way between two calls of a client: a sign-in that met a second factor (its resolver), an
/// authenticator app being enrolled (its secret), a GitHub device code waiting to be entered, a held sign-in's user, a
/// phone number's verification (its page open, then its code sent). Each is known by a
/// random handle, answered to the connection that started it and usable by that connection only, in the same app and
/// scope, for ``lifetime`` (a device code, as long as GitHub gives it); a connection that leaves the bus ends its own.
///
/// Steps are counted per app (``share``), across its connections. A step that needs a request first (a GitHub device
/// code) has its slot reserved before the request, at most one at a time per app, and given back when the request
/// fails or its client leaves (a phone verification's slot likewise, while its page is open); a client that has left is never given a step (``ClientGate``, checked under this
/// table's lock). A call uses a step by taking it (``take(_:client:scope:)``), which keeps its slot counted but lets no
/// other call take it, and then ends it (``finish(_:)``) or, when its use failed, gives it back (``giveBack(_:)``).
///
/// What holds an `Auth` (a held sign-in's scratch one, a resolver's) is never dropped inside the lock: the steps that
/// end are answered, for the broker to let go of on its registry's queue.
final class PendingSteps: Sendable {
    static let lifetime: Duration = .seconds(300)
    static let share = AppShare(perApp: 4, total: 64, reserved: 16)
    /// How long a reserved slot waits for its step (its request's own time limit is shorter).
    static let reservationLifetime: Duration = .seconds(120)

    enum Step: Sendable {
        /// A sign-in's second factor; `held`, the scratch `Auth` of a sign-in held until `CommitSignIn`.
        case signIn(MultiFactorResolver, held: Auth?)
        case enrollment(TOTPSecret)
        case gitHubDevice(GitHubDeviceFlow, GitHubDeviceAuthorization)
        /// A sign-in's user, signed in on a scratch `Auth` (kept with it) and stored by `CommitSignIn` only.
        case heldSignIn(User, Auth)
        /// A phone number's verification whose SMS code was sent.
        case phone(PhoneVerification)
    }

    private struct Entry {
        let client: String
        let app: String
        let scope: AuthScope
        /// `nil` while the slot is reserved for a step whose request is under way.
        var step: Step?
        var expires: ContinuousClock.Instant
        /// Whether a call is using the step now.
        var taken = false
    }

    /// A step a call has taken: ended with ``finish(_:)`` or given back with ``giveBack(_:)``.
    struct Taken: Sendable {
        let handle: String
        let step: Step
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let clients: ClientGate

    init(clients: ClientGate) {
        self.clients = clients
    }

    /// Keeps `step` for `client` of `app` in `scope`, and answers its handle.
    func add(
        _ step: Step, client: String, app: String, scope: AuthScope, lifetime: Duration = PendingSteps.lifetime
    ) throws(BrokerError) -> String {
        try insert(Entry(client: client, app: app, scope: scope, step: step, expires: .now + lifetime))
    }

    /// Reserves a slot for a step of `app` whose request is about to be sent, and answers its handle for
    /// ``fill(_:with:lifetime:)``, or ``finish(_:)`` when the request fails. An app reserves one slot at a time.
    func reserve(client: String, app: String, scope: AuthScope) throws(BrokerError) -> String {
        try insert(Entry(client: client, app: app, scope: scope, step: nil, expires: .now + Self.reservationLifetime))
    }

    /// Puts `step` in its reserved slot; fails when the slot is gone (its client left the bus meanwhile).
    func fill(_ handle: String, with step: Step, lifetime: Duration) throws(BrokerError) {
        try entries.withLock { entries throws(BrokerError) in
            guard entries[handle]?.step == nil, entries[handle] != nil else {
                throw BrokerError(.failed, "The client left the bus before its step was ready.")
            }
            entries[handle]!.step = step
            entries[handle]!.expires = .now + lifetime
        }
    }

    private func insert(_ entry: Entry) throws(BrokerError) -> String {
        let now = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        let handle = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.map { String(repeating: "0", count: 8 - $0.count) + $0 }
            .joined()
        var expired: [Entry] = []
        defer { withExtendedLifetime(expired) {} }  // after the lock: an expired step may hold the last reference to an Auth
        return try entries.withLock { entries throws(BrokerError) -> String in
            expired = Array(entries.values.filter { $0.expires <= now })
            entries = entries.filter { $0.value.expires > now }
            try clients.admit(entry.client)
            let ofApp = entries.values.filter { $0.app == entry.app }
            if entry.step == nil, ofApp.contains(where: { $0.step == nil }) {
                throw BrokerError(.failed, "This app is already starting a GitHub sign-in or a phone verification; wait for its answer.")
            }
            guard Self.share.admits(held: ofApp.count, inUse: entries.count) else {
                throw BrokerError(.failed, "Too many steps (second factors, GitHub codes, held sign-ins, phone verifications) are under way: an app has at most "
                    + "\(Self.share.perApp) at once; finish one, or start again later.")
            }
            entries[handle] = entry
            return handle
        }
    }

    /// Takes the step of `handle`, when `client` started it in `scope`, no other call has taken it, and it has not
    /// expired: it stays counted, and the taker ends it or gives it back.
    func take(_ handle: String, client: String, scope: AuthScope) throws(BrokerError) -> Taken {
        let now = ContinuousClock.now
        let step = entries.withLock { entries -> Step? in
            guard let entry = entries[handle], let step = entry.step, !entry.taken, entry.client == client, entry.scope == scope,
                entry.expires > now
            else { return nil }
            entries[handle]!.taken = true
            return step
        }
        guard let step else {
            throw BrokerError(.invalidArgument, "This connection has no step of that handle in this app and scope (a handle lasts "
                + "five minutes, a GitHub code as long as GitHub gives it, on the connection that got it, one call at a time); start again.")
        }
        return Taken(handle: handle, step: step)
    }

    /// Gives a taken step back, for another try with its handle; answers nothing, or the step when it ended meanwhile
    /// (it expired, or its client left), for the broker to let go of.
    func giveBack(_ taken: Taken) -> [Step] {
        let kept = entries.withLock { entries -> Bool in
            guard entries[taken.handle] != nil else { return false }
            entries[taken.handle]!.taken = false
            return true
        }
        return kept ? [] : [taken.step]
    }

    /// Ends the step (or the reserved slot) of `handle`; answers the step, for the broker to let go of.
    func finish(_ handle: String) -> [Step] {
        entries.withLock { $0.removeValue(forKey: handle) }.flatMap(\.step).map { [$0] } ?? []
    }

    /// Ends every step and reserved slot of `client`, which left the bus (it is given none after: ``ClientGate``);
    /// answers the steps, for the broker to let go of outside the lock.
    func clientLeft(_ client: String) -> [Step] {
        entries.withLock { entries in
            let leaving = entries.filter { $0.value.client == client }
            entries = entries.filter { $0.value.client != client }
            return leaving.values.compactMap(\.step)
        }
    }

    /// How many steps and reserved slots are kept, of `app` and in all.
    func count(of app: String) -> (ofApp: Int, inAll: Int) {
        entries.withLock { entries in (entries.values.count { $0.app == app }, entries.count) }
    }
}
