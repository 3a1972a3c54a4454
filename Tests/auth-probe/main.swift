import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain

// auth-probe NAMESPACE APP COMMAND [ARG]: one step of an app of `TwoApps.isolated`, in a process
// of its own, on the Secret Service. Prints `uid=<uid|none> group=<group|none>` after the step.
// Commands: show, use-group GROUP|none, sign-in, sign-out, migrate GROUP (the reference's
// three-step migration of the signed-in user).
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: auth-probe NAMESPACE APP COMMAND [ARG]\n".utf8))
    exit(64)
}
let (namespace, app, command) = (arguments[arguments.startIndex], arguments[arguments.startIndex + 1], arguments[arguments.startIndex + 2])
let argument = arguments.count > 3 ? arguments[arguments.startIndex + 3] : nil
let apps = TwoApps(store: SecretServiceStore(), backend: FakeBackend(apiKey: "AIza-\(namespace)"), namespace: namespace)
let auth = apps.launch(app)

do {
    switch command {
    case "show":
        break
    case "use-group":
        try auth.useUserAccessGroup(argument == "none" ? nil : argument)
    case "sign-in":
        _ = try await auth.signInAnonymously()
    case "sign-out":
        try auth.signOut()
    case "migrate":
        let user = auth.currentUser
        try auth.useUserAccessGroup(argument)
        try await auth.updateCurrentUser(user)
    default:
        FileHandle.standardError.write(Data("auth-probe: unknown command \(command)\n".utf8))
        exit(64)
    }
    print("uid=\(auth.currentUser?.uid ?? "none") group=\(auth.userAccessGroup ?? "none")")
} catch {
    FileHandle.standardError.write(Data("auth-probe: \(error)\n".utf8))
    exit(1)
}
