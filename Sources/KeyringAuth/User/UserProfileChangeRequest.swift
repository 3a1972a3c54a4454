import Foundation
import Synchronization

/// Changes to a user's profile, sent together by ``commitChanges()`` (Firebase's `UserProfileChangeRequest`).
/// Setting a field to `nil` removes it from the account; a field never set is left as it is.
///
/// A class, as Firebase's: `let request = user.createProfileChangeRequest()` then
/// `request.displayName = …` compiles as it does with Firebase.
public final class UserProfileChangeRequest: Sendable {
    let user: User
    private let changes = Mutex(AccountChanges())

    init(user: User) { self.user = user }

    public var displayName: String? {
        get { changes.withLock { $0.displayName } }
        set {
            changes.withLock { changes in
                changes.displayName = newValue
                if newValue == nil { changes.deletedAttributes.insert(.displayName) } else { changes.deletedAttributes.remove(.displayName) }
            }
        }
    }

    public var photoURL: URL? {
        get { changes.withLock { $0.photoURL } }
        set {
            changes.withLock { changes in
                changes.photoURL = newValue
                if newValue == nil { changes.deletedAttributes.insert(.photoURL) } else { changes.deletedAttributes.remove(.photoURL) }
            }
        }
    }

    /// Sends the changes to the backend and saves the updated user.
    ///
    /// - Throws: ``AuthError``; on failure the stored user is unchanged.
    public func commitChanges() async throws {
        try await user.update(changes.withLock { $0 })
    }
}
