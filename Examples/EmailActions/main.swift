// The "Email actions" article's block, as it is written there (a test checks that it appears in this file),
// written with Firebase's Apple API. It runs on the bundled emulator with users in memory, needing no keyring:
// `swift run email-actions-example`. The emulator records each email's code instead of sending it.
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain

// Not in the article: the configuration lines, a signed-in user, and what each email would hold (the code,
// or the whole link), read from the emulator's list of codes as a person reads their mail.
let emulator = AuthEmulator(configuration: .init(port: 0))
let address = try await emulator.start()
let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:abcdef", projectID: "demo-keyring-auth")
Auth.configure(AuthConfiguration(options: options, store: InMemoryStore()))
Auth.auth().useEmulator(withHost: address.host, port: address.port)
_ = try await Auth.auth().createUser(withEmail: "ada@example.com", password: "analytical-engine")
var verifyCode: String { emulator.outOfBandCodes.last?.oobCode ?? "" }
var resetCode: String { emulator.outOfBandCodes.last?.oobCode ?? "" }
var link: String { emulator.outOfBandCodes.last?.oobLink ?? "" }

// The article's block.
// Email verification: applied, the verified address reaches every running app of the group at once.
try await Auth.auth().currentUser?.sendEmailVerification()
try await Auth.auth().applyActionCode(verifyCode)  // the code in the email's link
print("verified:", Auth.auth().currentUser?.isEmailVerified ?? false)

// Password reset: the new password is set with the email's code; the account's sessions end.
try await Auth.auth().sendPasswordReset(withEmail: "ada@example.com")
print("reset for:", try await Auth.auth().verifyPasswordResetCode(resetCode))
try await Auth.auth().confirmPasswordReset(withCode: resetCode, newPassword: "difference-engine")
print("signed out:", Auth.auth().currentUser == nil)

// Email-link sign-in: no password at all; keep the address until the link comes back.
let settings = ActionCodeSettings()
settings.url = URL(string: "https://example.com/finish-sign-in")
settings.handleCodeInApp = true
try await Auth.auth().sendSignInLink(toEmail: "grace@example.com", actionCodeSettings: settings)
if Auth.auth().isSignIn(withEmailLink: link) {
    let user = try await Auth.auth().signIn(withEmail: "grace@example.com", link: link).user
    print("signed in with a link:", user.email ?? "", "verified:", user.isEmailVerified)
}
// End of the article's block.

// Not in the article: what it left.
print("codes left:", emulator.outOfBandCodes.count)
await emulator.stop()
