// The "Handling errors" blocks, as they are written in the article (a test
// checks that they appear in this file: their imports, then the rest verbatim). Nothing listens at the
// emulator address it uses, so each sign-in fails with networkError; users live in memory, so it needs
// no keyring (`swift run error-handling-example`).
import Foundation
import KeyringAuth
import SecretKeychain

@main struct ErrorHandlingExample {
    static func main() async throws {
        // Not in the article: an app whose backend cannot be reached.
        let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:errors", projectID: "my-project")
        Auth.configure(AuthConfiguration(options: options, store: InMemoryStore())).useEmulator(withHost: "127.0.0.1", port: 1)
        let email = "ada@example.com", password = "correct horse battery"

        // The article's first block: Swift's typed error.
        do {
            let result = try await Auth.auth().signIn(withEmail: email, password: password)
            try remember(result.user)  // the app's own code
        } catch let error as AuthError where error.code == .networkError {
            // offline: keep the user, try again later
        }
        print("typed: caught")  // a networkError the catch did not take would have ended main with it

        await portedFirebaseCode()
    }

    /// The article's second block: ported Firebase code.
    static func portedFirebaseCode() async {
        do {
            _ = try await Auth.auth().signInAnonymously()
        } catch let error as NSError {
            if error.domain == AuthErrors.domain && error.code == AuthErrorCode.networkError.rawValue { /* retry */ }
            switch AuthErrorCode(rawValue: error.code) {
            case .userDisabled: print(error.userInfo[NSLocalizedDescriptionKey] ?? "")
            default: print(error.userInfo[AuthErrors.userInfoNameKey] ?? "")  // ERROR_NETWORK_REQUEST_FAILED, …
            }
        }
    }

    /// The app's own code, in the article's first block.
    static func remember(_ user: User) throws { print("signed in:", user.uid) }
}
