/// A handle that removes a listener.
public struct AuthListenerHandle: Hashable, Sendable {
    let id: Int
}

/// Firebase's name for what ``Auth/addStateDidChangeListener(_:)`` returns.
public typealias AuthStateDidChangeListenerHandle = AuthListenerHandle
/// Firebase's name for what ``Auth/addIDTokenDidChangeListener(_:)`` returns.
public typealias IDTokenDidChangeListenerHandle = AuthListenerHandle
