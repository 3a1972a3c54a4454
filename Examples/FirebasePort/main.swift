// Code written for Firebase's Apple SDK, built for Linux: only the import differs. Every other line is
// as it would be in an app on iOS or macOS, from `FirebaseApp.configure()` (which reads the
// GoogleService-Info.plist in the working directory) to the error checks on `NSError`.
//
// Two apps of one access group, each a process of its own, run against the Auth emulator:
//
//     dbus/with-keyring Examples/FirebasePort/run
//
// `watch` prints who is signed in, then each change, until it has seen a sign-in and a sign-out;
// `sign-in` signs in with an email and password (creating the account the first time); `sign-out`
// signs the group out. `run` starts the emulator and the three, each when `watch` has printed what the
// step before should make it print; the tests run it and check every line.
#if canImport(FirebaseAuth)
import FirebaseAuth
import FirebaseCore
#else
import KeyringAuth
#endif
import Foundation

FirebaseApp.configure()
if let emulator = ProcessInfo.processInfo.environment["FIREBASE_AUTH_EMULATOR_HOST"],
    let colon = emulator.lastIndex(of: ":"), let port = Int(emulator[emulator.index(after: colon)...])
{
    Auth.auth().useEmulator(withHost: String(emulator[..<colon]), port: port)
}
try Auth.auth().useUserAccessGroup("TEAMID.com.example.port")

let email = "porter@example.com"
let password = "ported-as-is"

/// Prints who is signed in, then each change, until a sign-in and then a sign-out.
func watch() async {
    let handle = Auth.auth().addStateDidChangeListener { _, user in
        print("listener: \(user?.uid ?? "signed out")")
    }
    var sawSignIn = false
    for await user in Auth.auth().authStateChanges {
        print("watch sees: \(user?.email ?? "nobody")")
        if sawSignIn && user == nil { break }
        sawSignIn = sawSignIn || user != nil
    }
    Auth.auth().removeStateDidChangeListener(handle)
}

/// Signs in with an email and password, creating the account the first time.
func signIn() async throws {
    do {
        let result = try await Auth.auth().signIn(withEmail: email, password: password)
        print("signed in: \(result.user.email ?? "")")
    } catch {
        guard (error as NSError).domain == AuthErrorDomain else { throw error }
        switch AuthErrorCode(rawValue: (error as NSError).code) {
        case .userNotFound, .invalidCredential:
            let result = try await Auth.auth().createUser(withEmail: email, password: password)
            print("created and signed in: \(result.user.email ?? "")")
        default:
            print("sign-in failed: \(error.localizedDescription)")
            throw error
        }
    }
    let token = try await Auth.auth().currentUser?.getIDTokenResult()
    print("signed in with: \(token?.signInProvider ?? "nothing")")
}

/// Signs out every app of the group.
func signOut() throws {
    print("signed in at launch: \(Auth.auth().currentUser?.email ?? "nobody")")
    try Auth.auth().signOut()
    print("signed out")
}

switch CommandLine.arguments.dropFirst().first {
case "watch": await watch()
case "sign-in": try await signIn()
case "sign-out": try signOut()
default:
    print("usage: firebase-port-example watch | sign-in | sign-out")
    exit(2)
}
