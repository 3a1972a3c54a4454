import Dispatch
import Foundation
import Logging
import SecretKeychain

// Access groups: switching the app between its private scope and a group, all or nothing, and reading
// what a group holds.
extension Auth {
    /// Switches the app to `accessGroup` (`nil`: the private scope), as Firebase does: the choice
    /// is saved for the next launch, the user stored in that group becomes the current user
    /// (without being written back), and moving from the private scope to a group deletes the
    /// private item, signing the private user out. Moving back to `nil` deletes nothing.
    ///
    /// - Parameters:
    ///   - accessGroup: The group, for example `TEAMID.com.example.group1`; `nil` for the app's private scope.
    ///   - migratingCurrentUser: When moving from the private scope to a group, copy the signed-in
    ///     user into the group (replacing what is stored there) instead of signing them out.
    /// - Throws: ``AuthError``: an invalid group, ``AuthErrorCode/tenantIDMismatch`` for a group
    ///   user of another tenant, a keychain failure (also when the private item cannot be deleted),
    ///   or ``AuthErrorCode/accessGroupChoiceError``. On failure nothing stored and nothing in
    ///   memory has changed.
    public func useUserAccessGroup(_ accessGroup: String?, migratingCurrentUser: Bool = false) throws {
        let newGroup = try Self.validated(accessGroup)
        warnIfGroupCannotBeShared(newGroup)
        try transition { () throws(AuthError) in
            let (oldGroup, current) = state.withLock { ($0.group, $0.currentUser) }
            let carried = migratingCurrentUser && oldGroup == nil && newGroup != nil ? current : nil
            try switchGroupHoldingTransitions(to: newGroup, carrying: carried)
        }
    }

    /// Moves the app to `newGroup`, all or nothing. With `carried`, that user is saved in the new
    /// group's item and becomes current; otherwise the user stored there does. Then the choice is
    /// saved and, when leaving the private scope, the private item is deleted. A failure at any
    /// step puts back what the earlier steps changed and throws.
    func switchGroupHoldingTransitions(to newGroup: AccessGroup?, carrying carried: User?) throws(AuthError) {
        let (oldGroup, choiceKnown) = state.withLock { ($0.group, !$0.choiceUnknown) }
        // The new group is followed before it is read, so that no change falls between the two.
        let keepsFollowing = choiceKnown && newGroup == oldGroup && isLiveSyncActive
        var newObservation = keepsFollowing ? nil : followSharedUser(in: newGroup)
        defer { newObservation?.cancel() }
        var undo = UndoList(logger: logger)
        let newUser: User?
        do throws(AuthError) {
            if let carried {
                let previous = try AuthError.catchingKeychain { () throws(KeychainError) in
                    try store.data(for: StoredUserKeys.user(options, in: newGroup))
                }
                try save(carried.storedRecord, in: newGroup)
                undo.add("the user item of \(Self.describe(newGroup))") { () throws(AuthError) in
                    try self.restore(previous, in: newGroup)
                }
                newUser = carried
            } else {
                newUser = try readAdoptableUser(in: newGroup)
            }
            let appID = options.appID
            let previousChoice = try configuration.groupChoices.contents(forAppID: appID)
            try configuration.groupChoices.save(newGroup, forAppID: appID)
            undo.add("the access-group choice") { () throws(AuthError) in
                try self.configuration.groupChoices.restore(previousChoice, forAppID: appID)
            }
            // An unknown old choice is not taken for the private scope: nothing is deleted then.
            if choiceKnown, oldGroup == nil, newGroup != nil {
                try AuthError.catchingKeychain { () throws(KeychainError) in
                    try store.removeData(for: StoredUserKeys.privateUser(options))
                }
            }
        } catch {
            undo.run()
            throw error
        }
        state.withLock { state in
            state.group = newGroup
            state.unread = .nothing
            state.startupError = nil
            state.currentUser = newUser
            publish(&state)
        }
        if !keepsFollowing {
            replaceObservation(with: newObservation)
            newObservation = nil
        }
    }

    /// The user stored in `accessGroup` (`nil`: the app's private item), without changing anything
    /// (except that a user the app could not read at start-up, in its own group, becomes current).
    ///
    /// - Throws: ``AuthError``: an invalid group or keychain failure (``AuthErrorCode/keychainError``),
    ///   or a record that does not decode (``AuthErrorCode/corruptStoredUser``).
    public func getStoredUser(forAccessGroup accessGroup: String?) throws -> User? {
        let group = try Self.validated(accessGroup)
        if state.withLock({ $0.userUnread && !$0.choiceUnknown && $0.group == group }) {
            try transition { () throws(AuthError) in try completeStartupHoldingTransitions() }
        }
        return try Self.readRecord(configuration, in: group).map { User(record: $0, auth: self) }
    }
}
