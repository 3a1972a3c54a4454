// The "App Check" article's blocks, as they are written there (a test checks that they appear in this file), written
// with Firebase's Apple API. It runs on the bundled emulator enforcing App Check, whose debug secret it registers, on
// the session's keyring: `dbus/with-keyring swift run app-check-example`. The app's "backend" of the second block is
// the emulator's stand-in for the Admin SDK's createToken.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KeyringAuth
import KeyringAuthEmulator

// Not in the article: an emulator enforcing App Check, the debug secret registered there and set in the environment,
// as a developer sets APP_CHECK_DEBUG_TOKEN in a terminal or a CI job's secrets.
let secret = "5A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"
setenv("APP_CHECK_DEBUG_TOKEN", secret, 1)
let emulator = AuthEmulator(configuration: .init(port: 0, appCheck: .init(enforcesOnAuth: true, debugTokens: [secret])))
let address = try await emulator.start()
setenv("FIREBASE_AUTH_EMULATOR_HOST", address.description, 1)
let options = FirebaseOptions(googleAppID: "1:1234567890:linux:appcheck", gcmSenderID: "1234567890")
options.apiKey = "AIzaSyExample"
options.projectID = "demo-keyring-auth"

/// The app's backend: it checks the app its own way, then mints a token with the Admin SDK's `createToken` (here the
/// emulator's stand-in for it).
func askTheBackendForAnAppCheckToken() async throws -> (token: String, expiry: Date) {
    var request = URLRequest(url: URL(string: "http://\(address)/firebaseappcheck.googleapis.com/v1/projects/demo-keyring-auth/apps/1:1234567890:linux:notes:exchangeCustomToken")!)
    request.httpMethod = "POST"
    request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"customToken": "the backend's signed custom token"}"#.utf8)
    let (body, _) = try await URLSession.shared.data(for: request)
    let answer = try JSONSerialization.jsonObject(with: body) as? [String: String] ?? [:]
    let seconds = Double(answer["ttl"]?.dropLast() ?? "") ?? 0
    return (answer["token"] ?? "", Date().addingTimeInterval(seconds))
}

// The article's first block.
// Every request of the app's Auth carries a token of App Check's debug provider, whose secret is
// APP_CHECK_DEBUG_TOKEN's: set the factory before FirebaseApp.configure.
AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory())
FirebaseApp.configure(options: options)
let user = try await Auth.auth().signInAnonymously().user
print("signed in, anonymous:", user.isAnonymous)
// The token, for the app's calls to Firebase's other services.
let token = try await AppCheck.appCheck().token(forcingRefresh: false)
print("token valid for about", Int((token.expirationDate.timeIntervalSinceNow / 60).rounded()), "minutes")
// End of the article's first block.
try Auth.auth().signOut()

// The article's second block.
/// The app's own provider: tokens its backend mints with the Admin SDK.
struct BackendProvider: AppCheckProvider {
    func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        Task {
            do {
                let minted = try await askTheBackendForAnAppCheckToken()
                completion(AppCheckToken(token: minted.token, expirationDate: minted.expiry), nil)
            } catch {
                completion(nil, error)
            }
        }
    }
}

struct BackendProviderFactory: AppCheckProviderFactory {
    func createProvider(with app: FirebaseApp) -> (any AppCheckProvider)? { BackendProvider() }
}

AppCheck.setAppCheckProviderFactory(BackendProviderFactory())
let notesOptions = FirebaseOptions(googleAppID: "1:1234567890:linux:notes", gcmSenderID: "1234567890")
notesOptions.apiKey = "AIzaSyExample"
notesOptions.projectID = "demo-keyring-auth"
FirebaseApp.configure(name: "Notes", options: notesOptions)
let notes = Auth.auth(app: FirebaseApp.app(name: "Notes")!)
let writer = try await notes.signInAnonymously().user
print("Notes signed in, anonymous:", writer.isAnonymous)
// End of the article's second block.
try notes.signOut()

// Not in the article: what the emulator saw.
print("exchanges:", emulator.appCheckExchanges.map(\.method.rawValue).joined(separator: ", "))
await emulator.stop()
