import Dispatch
import Foundation
import Logging
import SecretKeychain

// The completion-handler forms of the `async` calls, as Firebase offers both; handlers run on the
// configuration's callback queue.
extension Auth {
    /// ``signInAnonymously()`` with a completion handler, called on the callback queue.
    public func signInAnonymously(completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void) {
        complete(completion) { () async throws(AuthError) in try await self.signInAnonymously() }
    }

    /// ``signIn(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func signIn(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void
    ) {
        complete(completion) { () async throws(AuthError) in try await self.signIn(withEmail: email, password: password) }
    }

    /// ``createUser(withEmail:password:)`` with a completion handler, called on the callback queue.
    public func createUser(
        withEmail email: String, password: String, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void
    ) {
        complete(completion) { () async throws(AuthError) in try await self.createUser(withEmail: email, password: password) }
    }

    /// ``signIn(with:)`` with a completion handler, called on the callback queue.
    public func signIn(with credential: AuthCredential, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void) {
        complete(completion) { () async throws(AuthError) in try await self.signIn(with: credential) }
    }

    /// ``signIn(withCustomToken:)`` with a completion handler, called on the callback queue.
    public func signIn(withCustomToken token: String, completion: @escaping @Sendable (AuthDataResult?, AuthError?) -> Void) {
        complete(completion) { () async throws(AuthError) in try await self.signIn(withCustomToken: token) }
    }

    /// ``updateCurrentUser(_:)`` with a completion handler, called on the callback queue.
    public func updateCurrentUser(_ user: User?, completion: @escaping @Sendable (AuthError?) -> Void) {
        complete({ (_: Void?, error) in completion(error) }) { () async throws(AuthError) in
            try await self.updateCurrentUser(user)
        }
    }

    /// Runs `body` in a task and calls `completion` with its result or error on the callback queue.
    func complete<Result: Sendable>(
        _ completion: @escaping @Sendable (Result?, AuthError?) -> Void,
        _ body: @escaping @Sendable () async throws(AuthError) -> Result
    ) {
        let queue = configuration.callbackQueue
        Task {
            do throws(AuthError) {
                let result = try await body()
                queue.async { completion(result, nil) }
            } catch {
                queue.async { completion(nil, error) }
            }
        }
    }
}
