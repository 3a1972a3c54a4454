// The Getting started walkthrough (its start is the README's first app), as it is written there (a test checks that the documents'
// block appears in this file: its imports, then the rest verbatim). It touches a keyring: run it on a throwaway one,
// `dbus/with-keyring swift run shared-sign-in-example`.
//
// Not in the documents: this example signs in against the bundled emulator instead of Firebase, pointing
// the app's backend at it with FIREBASE_AUTH_EMULATOR_HOST, as you would point yours (Getting started, "Using the
// emulator"). The emulator accepts any API key.
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging

var emulatorLogger = Logger(label: "emulator")
emulatorLogger.logLevel = .warning
let emulator = AuthEmulator(configuration: .init(port: 0, logger: emulatorLogger))
let address = try await emulator.start()
setenv("FIREBASE_AUTH_EMULATOR_HOST", "\(address)", 1)

// The documents' block, from here to the `for await` loop.
// Who the app is: the values from the Firebase console, or `AuthAppOptions.load(from:)` for the
// app options file ("The app options file" in Getting started). Apps are told apart by `appID`; `appName` only names an `Auth` within
// one process, so an app leaves it at "[DEFAULT]", the instance `Auth.auth()` returns.
let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:abcdef", projectID: "my-project")
let auth = Auth.configure(AuthConfiguration(options: options))  // store: the Secret Service; backend: Firebase
auth.addStateDidChangeListener { _, user in print("listener:", user?.uid ?? "signed out") }  // now, then each change

// 1–2. Share auth state in an access group.
try auth.useUserAccessGroup("TEAMID.com.example.group1")
// 3. Sign in in one app; every running app of the group has the same current user at once (live sync).
let shared = try await auth.signInAnonymously().user
print("signed in:", shared.uid, "in", auth.userAccessGroup ?? "no group")
// Sign out once: every app of the group is signed out.
try auth.signOut()

// Back to an unshared keychain: the next sign-in stays private to this app.
try auth.useUserAccessGroup(nil)
let privateUser = try await auth.signInAnonymously().user
print("signed in:", privateUser.uid, "in", auth.userAccessGroup ?? "no group")

// Migrate the signed-in user into the group, as Firebase documents it: entering the group signs the
// private user out, then `updateCurrentUser` signs them in there (listeners: nil, then the user).
let stored = try auth.getStoredUser(forAccessGroup: "TEAMID.com.example.group1")  // changes nothing
print("the group holds:", stored?.uid ?? "nobody")
try auth.useUserAccessGroup("TEAMID.com.example.group1")
try await auth.updateCurrentUser(privateUser)
// …or, ours only, in one step without signing out:
// try auth.useUserAccessGroup("TEAMID.com.example.group1", migratingCurrentUser: true)
precondition(Auth.auth() === auth)  // elsewhere in the app, the same instance

for await user in auth.authStateChanges {  // the current user now, then each change, until you stop
    print("stream:", user?.uid ?? "signed out")
    break
}

// Not in the documents: the listener's calls so far are printed, then the example leaves nobody signed in.
await withCheckedContinuation { done in auth.configuration.callbackQueue.async { done.resume() } }
try auth.signOut()
await withCheckedContinuation { done in auth.configuration.callbackQueue.async { done.resume() } }
await emulator.stop()
