import Dispatch
import KeyringAuth
import Synchronization

/// Records what a listener is told, as uids (`nil` for signed out).
public final class ListenerLog: Sendable {
    public init() {}
    private let events = Mutex<[String?]>([])

    public func record(_ user: User?) { events.withLock { $0.append(user?.uid) } }

    /// Everything told so far, once every callback queued on `auth`'s queue before this call has run.
    public func events(after auth: Auth) async -> [String?] {
        await withCheckedContinuation { continuation in
            auth.configuration.callbackQueue.async { continuation.resume() }
        }
        return events.withLock { $0 }
    }
}

