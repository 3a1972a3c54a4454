import Dispatch
import Foundation

// The completion-handler forms of `User`'s `async` calls, with Firebase's names, labels and optional
// completions (Firebase's `User.swift`). Handlers run on the callback queue of the user's `Auth`, as
// `Auth`'s own completion forms do; with `completion: nil` the work is still done.
//
// Unlike Firebase's, no completion has a default: with one, top-level code (main.swift, where Linux
// programs' `await`s mostly are) would resolve `try await user.reload()` to the completion form, with
// only a warning, and go on before the call ends. Without it, `user.reload()` in synchronous code needs
// `user.reload(completion: nil)`.
extension User {
    /// ``getIDToken(forcingRefresh:)`` with a completion handler, called on the callback queue.
    public func getIDToken(completion: (@Sendable (String?, Error?) -> Void)?) {
        getIDTokenForcingRefresh(false, completion: completion)
    }

    /// ``getIDToken(forcingRefresh:)`` with a completion handler, called on the callback queue.
    public func getIDTokenForcingRefresh(_ forceRefresh: Bool, completion: (@Sendable (String?, Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.getIDToken(forcingRefresh: forceRefresh) }
    }

    /// ``getIDToken(forcingRefresh:)``, under the name Firebase 10 gave it.
    public func idTokenForcingRefresh(_ forceRefresh: Bool) async throws -> String {
        try await getIDToken(forcingRefresh: forceRefresh)
    }

    /// ``getIDTokenResult(forcingRefresh:)`` with a completion handler, called on the callback queue.
    public func getIDTokenResult(completion: (@Sendable (AuthTokenResult?, Error?) -> Void)?) {
        getIDTokenResult(forcingRefresh: false, completion: completion)
    }

    /// ``getIDTokenResult(forcingRefresh:)`` with a completion handler, called on the callback queue.
    public func getIDTokenResult(forcingRefresh: Bool, completion: (@Sendable (AuthTokenResult?, Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.getIDTokenResult(forcingRefresh: forcingRefresh) }
    }

    /// ``link(with:)`` with a completion handler, called on the callback queue.
    public func link(with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.link(with: credential) }
    }

    /// ``unlink(fromProvider:)`` with a completion handler, called on the callback queue.
    public func unlink(fromProvider provider: String, completion: (@Sendable (User?, Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.unlink(fromProvider: provider) }
    }

    /// ``reauthenticate(with:)`` with a completion handler, called on the callback queue.
    public func reauthenticate(
        with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete(completion) { () async throws in try await self.reauthenticate(with: credential) }
    }

    /// ``reload()`` with a completion handler, called on the callback queue.
    public func reload(completion: (@Sendable (Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.reload() }
    }

    /// ``updateEmail(to:)`` with a completion handler, called on the callback queue.
    public func updateEmail(to email: String, completion: (@Sendable (Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.updateEmail(to: email) }
    }

    /// ``updatePhoneNumber(_:)`` with a completion handler, called on the callback queue.
    public func updatePhoneNumber(_ credential: PhoneAuthCredential, completion: (@Sendable (Error?) -> Void)? = nil) {
        complete(completion) { () async throws in try await self.updatePhoneNumber(credential) }
    }

    /// ``updatePassword(to:)`` with a completion handler, called on the callback queue.
    public func updatePassword(to password: String, completion: (@Sendable (Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.updatePassword(to: password) }
    }

    /// ``delete()`` with a completion handler, called on the callback queue.
    public func delete(completion: (@Sendable (Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.delete() }
    }

    /// ``sendEmailVerification(with:)`` with a completion handler, called on the callback queue.
    public func sendEmailVerification(completion: (@Sendable (Error?) -> Void)?) {
        complete(completion) { () async throws in try await self.sendEmailVerification() }
    }

    /// ``sendEmailVerification(with:)`` with a completion handler, called on the callback queue.
    public func sendEmailVerification(
        with actionCodeSettings: ActionCodeSettings, completion: (@Sendable (Error?) -> Void)?
    ) {
        complete(completion) { () async throws in try await self.sendEmailVerification(with: actionCodeSettings) }
    }

    /// ``sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`` with a completion handler, called on
    /// the callback queue.
    public func sendEmailVerification(
        beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil,
        completion: (@Sendable (Error?) -> Void)?
    ) {
        complete(completion) { () async throws in
            try await self.sendEmailVerification(beforeUpdatingEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// Runs `body` with ``Auth/complete(_:_:)`` of the user's `Auth`; when that `Auth` no longer exists,
    /// calls `completion` with its error on the callback queue that `Auth` had.
    func complete<Result: Sendable>(
        _ completion: (@Sendable (Result?, Error?) -> Void)?,
        _ body: @escaping @Sendable () async throws -> Result
    ) {
        let auth: Auth
        do throws(AuthError) {
            auth = try owningAuth()
        } catch {
            callbackQueue.async { completion?(nil, error) }
            return
        }
        auth.complete({ result, error in completion?(result, error) }, body)
    }

    /// ``complete(_:_:)`` for a call that returns nothing: the handler gets the error or `nil`.
    func complete(
        _ completion: (@Sendable (Error?) -> Void)?, _ body: @escaping @Sendable () async throws -> Void
    ) {
        complete({ (_: Void?, error) in completion?(error) }, body)
    }
}

extension UserProfileChangeRequest {
    /// ``commitChanges()`` with a completion handler, called on the callback queue of the user's `Auth`.
    public func commitChanges(completion: (@Sendable (Error?) -> Void)?) {
        user.complete(completion) { () async throws in try await self.commitChanges() }
    }
}
