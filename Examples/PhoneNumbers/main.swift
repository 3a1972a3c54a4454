// The "Phone numbers" article's block, as it is written there (a test checks that it appears in this file), written with
// Firebase's Apple API. It runs on the bundled emulator with users in memory, needing no keyring and no browser (the
// emulator verifies no app, so `useEmulator` turns app verification off, as Apple's SDK does):
// `swift run phone-numbers-example`. The emulator lists each SMS code instead of sending it.
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain

// Not in the article: the configuration lines, an account with a verified address, and the code each SMS would carry,
// read from the emulator's list as a person reads their phone.
let emulator = AuthEmulator(configuration: .init(port: 0))
let address = try await emulator.start()
let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:abcdef", projectID: "demo-keyring-auth")
Auth.configure(AuthConfiguration(options: options, store: InMemoryStore()))
Auth.auth().useEmulator(withHost: address.host, port: address.port)
try emulator.importAccounts(Data(#"{"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "ada", "email": "ada@example.com", "emailVerified": true, "rawPassword": "analytical-engine"}]}"#.utf8))
var smsCode: String { emulator.verificationCodes.last?.code ?? "" }

// The article's block.
// Phone sign-in: the app is verified in the person's browser, then Firebase sends the code by SMS.
let provider = PhoneAuthProvider.provider()
let verificationID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
let credential = provider.credential(withVerificationID: verificationID, verificationCode: smsCode)
let phoneUser = try await Auth.auth().signIn(with: credential).user
print("signed in:", phoneUser.phoneNumber ?? "")
try Auth.auth().signOut()

// An SMS second factor: enrolled with the session of a signed-in user...
let user = try await Auth.auth().signIn(withEmail: "ada@example.com", password: "analytical-engine").user
let session = try await user.multiFactor.session()
let enrollmentID = try await provider.verifyPhoneNumber("+15555550123", uiDelegate: nil, multiFactorSession: session)
let enrollment = provider.credential(withVerificationID: enrollmentID, verificationCode: smsCode)
try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: enrollment), displayName: "work phone")
try Auth.auth().signOut()

// ...then asked for at every sign-in, with the resolver's hint.
do {
    _ = try await Auth.auth().signIn(withEmail: "ada@example.com", password: "analytical-engine")
} catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
    let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
    let hint = resolver.hints[0] as! PhoneMultiFactorInfo
    let signInID = try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session)
    let code = provider.credential(withVerificationID: signInID, verificationCode: smsCode)
    let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: code))
    print("second factor:", hint.phoneNumber, "signed in:", result.user.email ?? "")
}
// End of the article's block.

// Not in the article: what it left.
print("codes left:", emulator.verificationCodes.count)
await emulator.stop()
