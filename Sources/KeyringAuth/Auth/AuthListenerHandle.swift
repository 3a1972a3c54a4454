/// A handle that removes a listener.
public struct AuthListenerHandle: Hashable, Sendable {
    let id: Int
}
