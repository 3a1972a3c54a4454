import KeyringAuth
import Synchronization

/// The steps under way between two calls of a client: a sign-in that met a second factor (its resolver), an
/// authenticator app being enrolled (its secret), a GitHub device code waiting to be entered. Each is known by a
/// random handle, answered to the connection that started it and usable by that connection only, in the same app and
/// scope, for ``lifetime`` (a device code, as long as GitHub gives it); a connection that leaves the bus ends its own.
final class PendingSteps: Sendable {
    static let lifetime: Duration = .seconds(300)
    static let maximumPerClient = 4
    static let maximum = 64

    enum Step: Sendable {
        case signIn(MultiFactorResolver)
        case enrollment(TOTPSecret)
        case gitHubDevice(GitHubDeviceFlow, GitHubDeviceAuthorization)
    }

    private struct Entry {
        let client: String
        let scope: Broker.Scope
        let step: Step
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Keeps `step` for `client` in `scope`, and answers its handle.
    func add(_ step: Step, client: String, scope: Broker.Scope, lifetime: Duration = PendingSteps.lifetime) throws(BrokerError) -> String {
        let now = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        let handle = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.map { String(repeating: "0", count: 8 - $0.count) + $0 }
            .joined()
        return try entries.withLock { entries throws(BrokerError) -> String in
            entries = entries.filter { $0.value.expires > now }
            guard entries.values.count(where: { $0.client == client }) < Self.maximumPerClient, entries.count < Self.maximum else {
                throw BrokerError(.failed, "Too many steps (second factors, GitHub codes) are under way; finish one, or start again later.")
            }
            entries[handle] = Entry(client: client, scope: scope, step: step, expires: now + lifetime)
            return handle
        }
    }

    /// The step of `handle`, when `client` started it in `scope` and it has not expired.
    func step(_ handle: String, client: String, scope: Broker.Scope) throws(BrokerError) -> Step {
        let now = ContinuousClock.now
        let entry = entries.withLock { entries in entries[handle] }
        guard let entry, entry.client == client, entry.scope == scope, entry.expires > now else {
            throw BrokerError(.invalidArgument, "This connection has no step of that handle in this app and scope (a handle lasts "
                + "five minutes, a GitHub code as long as GitHub gives it, on the connection that got it); start again.")
        }
        return entry.step
    }

    /// Ends the step of `handle`.
    func finish(_ handle: String) {
        _ = entries.withLock { $0.removeValue(forKey: handle) }
    }

    /// Ends every step of `client`, which left the bus.
    func clientLeft(_ client: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.client != client } }
    }
}
