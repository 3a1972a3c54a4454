import KeyringAuth
import SystemSupport

// Watches (`Broker1.Watch`): each watching client is sent `UserChanged` when its scope's user changes, whoever changed it.
extension Broker {
    func watch(
        _ scope: AuthScope, auth: Auth, client: String, app: [String: GVariants.Value], holder: String
    ) throws(BrokerError) {
        let outcome = try state.withLock { state throws(BrokerError) -> (isFirst: Bool, refused: Bool) in
            // A client that left while its Auth was being made is never added: nothing would remove it.
            try clients.admit(client)
            let isNew = state.watches[scope]?.clients[client] == nil
            if isNew {
                let watches = state.watches.values.flatMap(\.clients.values)
                let ofApp = watches.count { $0.holder == holder }
                guard Self.watchShare.admits(held: ofApp, inUse: watches.count) else { return (false, true) }
            }
            // The watch holds the scope for its app, as the call does (which holds it now: no quota is passed here).
            if isNew { _ = try state.scopes.hold(scope, by: holder) }
            let isFirst = state.watches[scope] == nil
            if isFirst {
                state.watches[scope] = ScopeWatch(lastSent: UserDictionary.values(of: auth.currentUser))
                activity.watchBegan()
            }
            state.watches[scope]!.clients[client] = (app, holder)
            return (isFirst, false)
        }
        if outcome.refused {
            throw BrokerError(.failed, "An app may have at most \(Self.watchShare.perApp) watches at once, across its connections "
                + "and scopes; unwatch one first.")
        }
        guard outcome.isFirst else { return }
        let handle = auth.addUserDidChangeListener { [weak self] _, user in self?.userChanged(in: scope, to: user) }
        let stale = state.withLock { state -> Bool in
            guard state.watches[scope] != nil else { return true }
            state.watches[scope]!.handle = handle
            return false
        }
        if stale { auth.removeUserDidChangeListener(handle) }
    }

    func unwatch(_ scope: AuthScope, client: String) {
        let (ended, released) = state.withLock { state -> ((Auth, AuthListenerHandle)?, Auth?) in
            guard let left = state.watches[scope]?.clients.removeValue(forKey: client) else { return (nil, nil) }
            var ended: (Auth, AuthListenerHandle)?
            if state.watches[scope]!.clients.isEmpty {
                let watch = state.watches.removeValue(forKey: scope)!
                activity.watchEnded()
                if let handle = watch.handle, let auth = state.scopes[scope] { ended = (auth, handle) }
            }
            return (ended, state.scopes.release(scope, by: left.holder))
        }
        if let (auth, handle) = ended { auth.removeUserDidChangeListener(handle) }
        letGo([released, ended?.0].compactMap { $0 })
    }

    /// Removes `client`'s watches (it left the bus) from `state`; answers the listeners to remove (of scopes nobody
    /// watches now) and the `Auth`s released with the watches' holds, for the caller to end outside the lock.
    func removeWatches(of client: String, from state: inout State) -> (emptied: [(Auth, AuthListenerHandle)], released: [Auth]) {
        var emptied: [(Auth, AuthListenerHandle)] = []
        var released: [Auth] = []
        for (scope, var watch) in state.watches {
            guard let left = watch.clients.removeValue(forKey: client) else { continue }
            if watch.clients.isEmpty {
                state.watches[scope] = nil
                if let handle = watch.handle, let auth = state.scopes[scope] { emptied.append((auth, handle)) }
                activity.watchEnded()
            } else {
                state.watches[scope] = watch
            }
            if let auth = state.scopes.release(scope, by: left.holder) { released.append(auth) }
        }
        return (emptied, released)
    }

    /// Sends `UserChanged` to each client watching `scope`, when what they were last sent differs.
    func userChanged(in scope: AuthScope, to user: User?) {
        let values = UserDictionary.values(of: user)
        let recipients = state.withLock { state -> [String: [String: GVariants.Value]] in
            guard var watch = state.watches[scope], watch.lastSent != values else { return [:] }
            watch.lastSent = values
            state.watches[scope] = watch
            return watch.clients.mapValues(\.app)
        }
        guard !recipients.isEmpty, let bus = currentBus else { return }
        let group = scope.group?.rawValue ?? ""
        for (client, app) in recipients {
            let parameters = GVariantValues.tuple([GVariants.dictionary(app), GVariants.string(group), GVariants.dictionary(values)])
            bus.emitSignal("UserChanged", to: client, parameters: parameters)
        }
        logger.debug("Sent UserChanged", metadata: ["clients": "\(recipients.count)"])
    }
}
