import Dispatch
import Foundation
import Logging
import SecretKeychain

// Listeners and the state stream: who is told of a change of the current user, by Firebase's rules, in order.
extension Auth {
    /// Calls `listener` on the callback queue now, and whenever the signed-in user changes.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping Listener) -> AuthListenerHandle {
        addListener(listener, to: \.stateListeners)
    }

    /// Calls `listener` on the callback queue now, and whenever the signed-in user or their ID token changes.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping Listener) -> AuthListenerHandle {
        addListener(listener, to: \.tokenListeners)
    }

    /// Calls `listener` on the callback queue now, and whenever anything of the current user changes: who is signed
    /// in, their token, or any field of their record (profile, address, verification, providers, second factors),
    /// whoever changed it (this app, or another through the keychain). What the broker's `UserChanged` follows.
    @discardableResult
    package func addUserDidChangeListener(_ listener: @escaping Listener) -> AuthListenerHandle {
        addListener(listener, to: \.userListeners)
    }

    /// Stops calling a listener added by ``addUserDidChangeListener(_:)``.
    package func removeUserDidChangeListener(_ handle: AuthListenerHandle) {
        _ = state.withLock { $0.userListeners.removeValue(forKey: handle.id) }
    }

    /// Stops calling a listener added by ``addStateDidChangeListener(_:)``.
    public func removeStateDidChangeListener(_ handle: AuthListenerHandle) {
        _ = state.withLock { $0.stateListeners.removeValue(forKey: handle.id) }
    }

    /// Stops calling a listener added by ``addIDTokenDidChangeListener(_:)``.
    public func removeIDTokenDidChangeListener(_ handle: AuthListenerHandle) {
        _ = state.withLock { $0.tokenListeners.removeValue(forKey: handle.id) }
    }

    /// A new stream of the current user, then each change the listeners of `list` are told of, until
    /// the stream is dropped. The first value is yielded at once (not through the callback queue), so
    /// a stream works whatever runs the callback queue.
    func makeStream(_ list: WritableKeyPath<State, [Int: AsyncStream<User?>.Continuation]> & Sendable) -> AsyncStream<User?> {
        let (stream, continuation) = AsyncStream<User?>.makeStream()
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state[keyPath: list][id] = continuation
            continuation.yield(state.currentUser)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0[keyPath: list].removeValue(forKey: id) }
        }
        return stream
    }

    func addListener(_ listener: @escaping Listener, to list: WritableKeyPath<State, [Int: Listener]>) -> AuthListenerHandle {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state[keyPath: list][id] = listener
            let user = state.currentUser
            configuration.callbackQueue.async { listener(self, user) }
            return AuthListenerHandle(id: id)
        }
    }

    /// Tells listeners about a change of the current user, by Firebase's rules: state listeners
    /// when the signed-in uid changed, token listeners when the uid or the ID token changed; and user listeners
    /// when anything of the record changed. Called with the state locked, so notifications are queued in the order
    /// of the changes.
    func publish(_ state: inout State) {
        let user = state.currentUser
        let uid = user?.uid
        let record = user?.storedRecord
        let token = record?.tokens.idToken
        let encoded = record?.encoded()
        let uidChanged = uid != state.notifiedUID
        let tokenChanged = uidChanged || token != state.notifiedToken
        let recordChanged = tokenChanged || encoded != state.notifiedRecord
        state.notifiedUID = uid
        state.notifiedToken = token
        state.notifiedRecord = encoded
        let queue = configuration.callbackQueue
        if recordChanged {
            for (_, listener) in state.userListeners.sorted(by: { $0.key < $1.key }) { queue.async { listener(self, user) } }
        }
        if uidChanged {
            for (_, listener) in state.stateListeners.sorted(by: { $0.key < $1.key }) { queue.async { listener(self, user) } }
            for continuation in state.stateStreams.values { continuation.yield(user) }
        }
        if tokenChanged {
            for (_, listener) in state.tokenListeners.sorted(by: { $0.key < $1.key }) { queue.async { listener(self, user) } }
            for continuation in state.tokenStreams.values { continuation.yield(user) }
            queue.async { NotificationCenter.default.post(name: Auth.authStateDidChangeNotification, object: self) }
            scheduleTokenRefresh(for: user, in: &state)
        }
    }
}

extension Auth {
    /// Posted to `NotificationCenter.default`, with the ``Auth`` as its object, on the callback queue
    /// whenever its ID-token listeners are called for a change (sign-in, sign-out, a new token), as
    /// Firebase's `Auth.authStateDidChangeNotification`.
    public static let authStateDidChangeNotification = Notification.Name.AuthStateDidChange
}

extension Notification.Name {
    /// ``Auth/authStateDidChangeNotification``, under the name Firebase's headers give it (`FIRAuthStateDidChangeNotification`).
    public static let AuthStateDidChange = Notification.Name("FIRAuthStateDidChangeNotification")
}
