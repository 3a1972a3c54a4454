// The "Sign in with any method" article's block, as it is written there (a test checks that it appears in
// this file), written with Firebase's Apple API: only the configuration lines differ from an iOS app's.
// It runs on the bundled emulator with users in memory, needing no keyring: `swift run sign-in-methods-example`.
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain

// Not in the article: the configuration lines (Firebase: FirebaseApp.configure()), and the tokens a
// provider's sign-in and the app's server would give, as the emulator takes them.
let emulator = AuthEmulator(configuration: .init(port: 0))
let address = try await emulator.start()
let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:abcdef", projectID: "demo-keyring-auth")
Auth.configure(AuthConfiguration(options: options, store: InMemoryStore()))
Auth.auth().useEmulator(withHost: address.host, port: address.port)
let googleIDToken = #"{"sub": "google-ada", "email": "ada@example.com", "email_verified": true, "name": "Ada"}"#
let googleAccessToken = ""
let customToken = AuthEmulator.unsignedCustomToken(uid: "server-user-1", claims: ["role": "editor"])

// The article's block.
// A Google user: the tokens Google's own sign-in gave the app.
let google = GoogleAuthProvider.credential(withIDToken: googleIDToken, accessToken: googleAccessToken)
let result = try await Auth.auth().signIn(with: google)
print("google user:", result.user.uid, "new:", result.additionalUserInfo?.isNewUser ?? false)

// A user of the app's own server, which minted a custom token with the Admin SDK.
let custom = try await Auth.auth().signIn(withCustomToken: customToken).user
let claims = try await custom.getIDTokenResult().claims  // decoded locally, as Firebase does
print("custom user:", custom.uid, "role:", claims["role"] as? String ?? "none")

// An anonymous user made permanent: linked, it is permanent in every app of the group at once.
let guest = try await Auth.auth().signInAnonymously().user
let linked = EmailAuthProvider.credential(withEmail: "guest@example.com", password: "analytical-engine")
_ = try await Auth.auth().currentUser?.link(with: linked)
print("permanent:", !guest.isAnonymous, guest.providerData.map(\.providerID))

// Tenants and language, as Firebase's: sent with every request.
Auth.auth().tenantID = nil          // or an Identity Platform tenant
Auth.auth().useAppLanguage()        // LC_ALL, LC_MESSAGES or LANG, as X-Firebase-Locale
// End of the article's block.

// Not in the article: what it left.
print("accounts:", emulator.accounts.count)
await emulator.stop()
