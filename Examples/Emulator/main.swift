// Getting started's "Using the emulator" blocks, as they are written there (a test checks that they appear
// in this file: their imports, then the rest verbatim). Its users live in memory: it needs no keyring (`swift run emulator-example`).
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain

// Not in the article: the app's options, as its GoogleService-Info.plist would give them.
let options = FirebaseOptions(googleAppID: "1:1234567890:linux:abcdef", gcmSenderID: "1234567890")
options.apiKey = "AIzaSyExample"

// "Porting a Firebase app": this package's own settings, chosen before the first Auth.auth(); here users in memory.
FirebaseApp.configure(options: options)
Auth.configure(AuthConfiguration(app: FirebaseApp.app()!, store: InMemoryStore()))

// The article's first block: an emulator at a known address (not started here; the next block replaces it).
Auth.auth().useEmulator(withHost: "127.0.0.1", port: 9099)  // before signing in

// The article's block "Run one inside a process".
let emulator = AuthEmulator(configuration: .init(port: 0, tokenLifetime: .seconds(120)))
let address = try await emulator.start()          // 127.0.0.1:<free port>
Auth.auth().useEmulator(withHost: address.host, port: address.port)
let uid = try await Auth.auth().signInAnonymously().user.uid
try emulator.revokeTokens(of: uid)                // the next refresh answers TOKEN_EXPIRED
emulator.settings.allowsAnonymousSignUp = false   // anonymous sign-up answers OPERATION_NOT_ALLOWED
let json = emulator.exportAccounts()              // {"kind": …DownloadAccountResponse, "users": […]}
await emulator.stop()

// Not in the article: what the export holds.
let export = try JSONSerialization.jsonObject(with: json) as? [String: Any]
let users = export?["users"] as? [[String: Any]] ?? []
print("exported:", users.compactMap { $0["localId"] as? String }, "signed in:", uid)
