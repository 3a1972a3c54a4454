import Dispatch
import KeyringAuth
import Synchronization

/// Records what a listener is told, as uids (`nil` for signed out).
package final class ListenerLog: Sendable {
    package init() {}
    private let events = Mutex<[String?]>([])
    /// The same events, for tests that wait for the next one.
    package let arrivals = Mailbox<String?>()

    package func record(_ user: User?) {
        events.withLock { $0.append(user?.uid) }
        arrivals.post(user?.uid)
    }

    /// Everything told so far, once every callback queued on `auth`'s queue before this call has run.
    package func events(after auth: Auth) async -> [String?] {
        await withCheckedContinuation { continuation in
            auth.configuration.callbackQueue.async { continuation.resume() }
        }
        return events.withLock { $0 }
    }

    /// The next event, waiting for it (at most `limit`).
    package func next(within limit: Duration = .seconds(30)) async throws -> String? {
        try await arrivals.next(within: limit)
    }

    /// Takes events until one satisfies `predicate`, and returns it (waiting at most `limit`).
    package func next(within limit: Duration = .seconds(30), where predicate: (String?) -> Bool) async throws -> String? {
        try await arrivals.next(within: limit, where: predicate)
    }
}

/// A short, stable stand-in for a token in test output (FNV-1a, 64 bits): tells tokens apart
/// across processes without printing them.
package func fingerprint(_ token: String?) -> String {
    guard let token else { return "none" }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in token.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
}
