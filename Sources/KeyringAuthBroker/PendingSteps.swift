import KeyringAuth
import Synchronization

/// The steps under way between two calls of a client: a sign-in that met a second factor (its resolver), an
/// authenticator app being enrolled (its secret), a GitHub device code waiting to be entered, a held sign-in's user. Each is known by a
/// random handle, answered to the connection that started it and usable by that connection only, in the same app and
/// scope, for ``lifetime`` (a device code, as long as GitHub gives it); a connection that leaves the bus ends its own.
///
/// Steps are counted per app (``share``), across its connections. A step that needs a request first (a GitHub device
/// code) has its slot reserved before the request, at most one at a time per app, and given back when the request
/// fails or its client leaves; a client that has left is never given a step.
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
    }

    private struct Entry {
        let client: String
        let app: String
        let scope: Broker.Scope
        /// `nil` while the slot is reserved for a step whose request is under way.
        var step: Step?
        var expires: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var departed = DepartedClients()
    }

    private let state = Mutex(State())

    /// Keeps `step` for `client` of `app` in `scope`, and answers its handle.
    func add(
        _ step: Step, client: String, app: String, scope: Broker.Scope, lifetime: Duration = PendingSteps.lifetime
    ) throws(BrokerError) -> String {
        try insert(Entry(client: client, app: app, scope: scope, step: step, expires: .now + lifetime))
    }

    /// Reserves a slot for a step of `app` whose request is about to be sent, and answers its handle for
    /// ``fill(_:with:lifetime:)``, or ``finish(_:)`` when the request fails. An app reserves one slot at a time.
    func reserve(client: String, app: String, scope: Broker.Scope) throws(BrokerError) -> String {
        try insert(Entry(client: client, app: app, scope: scope, step: nil, expires: .now + Self.reservationLifetime))
    }

    /// Puts `step` in its reserved slot; fails when the slot is gone (its client left the bus meanwhile).
    func fill(_ handle: String, with step: Step, lifetime: Duration) throws(BrokerError) {
        try state.withLock { state throws(BrokerError) in
            guard state.entries[handle]?.step == nil, state.entries[handle] != nil else {
                throw BrokerError(.failed, "The client left the bus before its step was ready.")
            }
            state.entries[handle]!.step = step
            state.entries[handle]!.expires = .now + lifetime
        }
    }

    private func insert(_ entry: Entry) throws(BrokerError) -> String {
        let now = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        let handle = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.map { String(repeating: "0", count: 8 - $0.count) + $0 }
            .joined()
        return try state.withLock { state throws(BrokerError) -> String in
            state.entries = state.entries.filter { $0.value.expires > now }
            guard !state.departed.contains(entry.client) else { throw BrokerError(.failed, "The client left the bus.") }
            let ofApp = state.entries.values.filter { $0.app == entry.app }
            if entry.step == nil, ofApp.contains(where: { $0.step == nil }) {
                throw BrokerError(.failed, "This app is already starting a GitHub sign-in; wait for its answer.")
            }
            guard Self.share.admits(held: ofApp.count, inUse: state.entries.count) else {
                throw BrokerError(.failed, "Too many steps (second factors, GitHub codes, held sign-ins) are under way: an app has at most "
                    + "\(Self.share.perApp) at once; finish one, or start again later.")
            }
            state.entries[handle] = entry
            return handle
        }
    }

    /// The step of `handle`, when `client` started it in `scope` and it has not expired.
    func step(_ handle: String, client: String, scope: Broker.Scope) throws(BrokerError) -> Step {
        let now = ContinuousClock.now
        let entry = state.withLock { state in state.entries[handle] }
        guard let entry, let step = entry.step, entry.client == client, entry.scope == scope, entry.expires > now else {
            throw BrokerError(.invalidArgument, "This connection has no step of that handle in this app and scope (a handle lasts "
                + "five minutes, a GitHub code as long as GitHub gives it, on the connection that got it); start again.")
        }
        return step
    }

    /// Ends the step (or the reserved slot) of `handle`.
    func finish(_ handle: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: handle) }
    }

    /// Ends every step and reserved slot of `client`, which left the bus; it is given none after.
    func clientLeft(_ client: String) {
        state.withLock { state in
            state.departed.insert(client)
            state.entries = state.entries.filter { $0.value.client != client }
        }
    }
}
