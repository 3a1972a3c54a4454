import Dispatch
import Foundation
import Logging
import SecretKeychain

// The completion-handler forms of the `async` calls, as Firebase offers both; handlers run on the
// configuration's callback queue.
extension Auth {
    /// ``signInAnonymously()`` with a completion handler, called on the callback queue.
    public func signInAnonymously(completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.signInAnonymously() }
    }

    /// ``signIn(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func signIn(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void
    ) {
        complete(completion) { () async throws in try await self.signIn(withEmail: email, password: password) }
    }

    /// ``createUser(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func createUser(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void
    ) {
        complete(completion) { () async throws in try await self.createUser(withEmail: email, password: password) }
    }

    /// ``signIn(with:)`` with a completion handler, called on the callback queue.
    public func signIn(with credential: AuthCredential, completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.signIn(with: credential) }
    }

    /// ``signIn(withCustomToken:)`` with a completion handler, called on the callback queue.
    public func signIn(withCustomToken token: String, completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.signIn(withCustomToken: token) }
    }

    /// ``updateCurrentUser(_:)`` with a completion handler, called on the callback queue.
    public func updateCurrentUser(_ user: User?, completion: @escaping @Sendable (Error?) -> Void) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws in
            try await self.updateCurrentUser(user)
        }
    }

    /// ``sendPasswordReset(withEmail:actionCodeSettings:)`` with a completion handler, called on the callback queue.
    public func sendPasswordReset(
        withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil, completion: @escaping @Sendable (Error?) -> Void
    ) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws in
            try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// ``confirmPasswordReset(withCode:newPassword:)`` with a completion handler, called on the callback queue.
    public func confirmPasswordReset(withCode code: String, newPassword: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws in
            try await self.confirmPasswordReset(withCode: code, newPassword: newPassword)
        }
    }

    /// ``verifyPasswordResetCode(_:)`` with a completion handler, called on the callback queue.
    public func verifyPasswordResetCode(_ code: String, completion: @escaping @Sendable (String?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.verifyPasswordResetCode(code) }
    }

    /// ``checkActionCode(_:)`` with a completion handler, called on the callback queue.
    public func checkActionCode(_ code: String, completion: @escaping @Sendable (ActionCodeInfo?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.checkActionCode(code) }
    }

    /// ``applyActionCode(_:)`` with a completion handler, called on the callback queue.
    public func applyActionCode(_ code: String, completion: @escaping @Sendable (Error?) -> Void) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws in try await self.applyActionCode(code) }
    }

    /// ``sendSignInLink(toEmail:actionCodeSettings:)`` with a completion handler, called on the callback queue.
    public func sendSignInLink(
        toEmail email: String, actionCodeSettings: ActionCodeSettings, completion: @escaping @Sendable (Error?) -> Void
    ) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws in
            try await self.sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// ``signIn(withEmail:link:)`` with a completion handler, called on the callback queue.
    public func signIn(withEmail email: String, link: String, completion: @escaping @Sendable (AuthDataResult?, Error?) -> Void) {
        complete(completion) { () async throws in try await self.signIn(withEmail: email, link: link) }
    }

    /// Runs `body` in a task and calls `completion` with its result or error on the callback queue.
    func complete<Result: Sendable>(
        _ completion: @escaping @Sendable (Result?, Error?) -> Void,
        _ body: @escaping @Sendable () async throws -> Result
    ) {
        let queue = configuration.callbackQueue
        Task {
            do {
                let result = try await body()
                queue.async { completion(result, nil) }
            } catch {
                queue.async { completion(nil, error) }
            }
        }
    }
}
