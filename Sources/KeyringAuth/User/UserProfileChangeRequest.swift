import Foundation

/// Changes to a user's profile, sent together by ``commitChanges()`` (Firebase's `UserProfileChangeRequest`).
/// Setting a field to `nil` removes it from the account; a field never set is left as it is.
public struct UserProfileChangeRequest: Sendable {
    private let user: User
    private var changes = AccountChanges()

    init(user: User) { self.user = user }

    public var displayName: String? {
        get { changes.displayName }
        set {
            changes.displayName = newValue
            if newValue == nil { changes.deletedAttributes.insert(.displayName) } else { changes.deletedAttributes.remove(.displayName) }
        }
    }

    public var photoURL: URL? {
        get { changes.photoURL }
        set {
            changes.photoURL = newValue
            if newValue == nil { changes.deletedAttributes.insert(.photoURL) } else { changes.deletedAttributes.remove(.photoURL) }
        }
    }

    /// Sends the changes to the backend and saves the updated user.
    ///
    /// - Throws: ``AuthError``; on failure the stored user is unchanged.
    public func commitChanges() async throws(AuthError) {
        try await user.update(changes)
    }
}
