import Foundation
import Logging
@testable import KeyringAuth
import KeyringTestSupport
import SecretKeychain

// auth-probe NAMESPACE APP COMMAND [ARG]: one step of an app of `TwoApps.isolated`, in a process
// of its own, on the Secret Service. Prints `uid=<uid|none> group=<group|none>` after the step.
// Commands: show, use-group GROUP|none, sign-in, sign-out, migrate GROUP (the reference's
// three-step migration of the signed-in user), session GROUP (below), chaos GROUP SEED [never-prompt] (Chaos.swift)
// and switch-groups GROUP COUNT (below).
let arguments = CommandLine.arguments.dropFirst()
// auth-probe browse URL [EMAIL]: a stand-in for the user's browser (the desktop sign-in's tests put it behind a fake
// xdg-open): follows the provider's redirect back to the app and prints the app's page. At the emulator's provider page
// it signs in as EMAIL (the listed account, else a new one).
if (2...3).contains(arguments.count), arguments.first == "browse", let url = URL(string: arguments[arguments.startIndex + 1]) {
    do {
        let email = arguments.count == 3 ? arguments.last! : "ada@example.com"
        let page = url.path == "/emulator/auth/idp"
            ? try EmulatorIdPPage.complete(url, .signIn(email: email, displayName: "Ada"))
            : try FakeOAuthProvider.Browser.signIn(url)
        print("status=\(page.status)")
        print(page.body)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("auth-probe: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: auth-probe NAMESPACE APP COMMAND [ARG]\n".utf8))
    exit(64)
}
let (namespace, app, command) = (arguments[arguments.startIndex], arguments[arguments.startIndex + 1], arguments[arguments.startIndex + 2])
let argument = arguments.count > 3 ? arguments[arguments.startIndex + 3] : nil
let apps = TwoApps(store: SecretServiceStore(), backend: FakeBackend(apiKey: "AIza-\(namespace)"), namespace: namespace)

if command == "session", let group = argument {
    await runSession(app, group: group)
    exit(0)
}
if command == "chaos", let group = argument, arguments.count > 4, let seed = UInt64(arguments[arguments.startIndex + 4]) {
    let prompts = !(arguments.count > 5 && arguments[arguments.startIndex + 5] == "never-prompt")
    await runChaos(apps.options(app), group: group, seed: seed, prompts: prompts)
    exit(0)
}

if command == "switch-groups", let group = argument, arguments.count > 4, let count = Int(arguments[arguments.startIndex + 4]) {
    switchGroups(apps.launch(app), around: group, count: count)
    exit(0)
}

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

/// session GROUP: a running app of GROUP with live sync, signing in against the emulator named by
/// FIREBASE_AUTH_EMULATOR_HOST. Prints each listener call (`state uid=U`, `token uid=U token=F`,
/// `none` for no user, F a fingerprint): first the listeners' first calls, then `ready live=true|false`; then runs one command per
/// line of standard input (sign-in, sign-out, refresh, show, live), printing `done …` or `error …`.
func runSession(_ app: String, group: String) async {
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    @Sendable func describe(_ user: User?) -> String { "uid=\(user?.uid ?? "none")" }
    // Everything the store does goes to standard error, for the test to show when it fails.
    var logger = Logger(label: "auth-probe")
    logger.logLevel = .trace
    let store = SecretServiceStore(configuration: .init(logger: logger))
    let auth = Auth(configuration: AuthConfiguration(options: apps.options(app), store: store, logger: logger))
    do {
        try auth.useUserAccessGroup(group)
    } catch {
        say("error \(error)")
        return
    }
    auth.addStateDidChangeListener { _, user in say("state \(describe(user))") }
    auth.addIDTokenDidChangeListener { _, user in
        say("token \(describe(user)) token=\(fingerprint(user.map { $0.storedRecord.tokens.idToken }))")
    }
    // Once live sync has started (right after configure) and the listeners' first calls are printed, so that
    // `ready` comes after them.
    auth.waitForLiveSyncStart()
    auth.configuration.callbackQueue.sync {}
    say("ready live=\(auth.isLiveSyncActive)")
    while let line = readLine() {
        do {
            switch line {
            case "sign-in":
                let result = try await auth.signInAnonymously()
                say("done signed-in \(describe(result.user))")
            case "sign-out":
                try auth.signOut()
                say("done signed-out")
            case "refresh":
                let token = try await auth.currentUser?.getIDToken(forcingRefresh: true)
                say("done refreshed token=\(fingerprint(token))")
            case "live":
                say("done live=\(auth.isLiveSyncActive)")
            case "show":
                say("done current \(describe(auth.currentUser)) token=\(fingerprint(auth.currentUser?.storedRecord.tokens.idToken))")
            default:
                say("error unknown command \(line)")
            }
        } catch {
            say("error \(error)")
        }
    }
}

/// switch-groups GROUP COUNT: an app with live sync switches its group COUNT times, among GROUP, seven groups beside it
/// and its private scope, following each, as an app that lets its user choose a group does; prints `before` and `after`
/// lines of its threads and descriptors, with the first group followed each time, then `live=true|false`.
func switchGroups(_ auth: Auth, around group: String, count: Int) {
    let groups: [String?] = [group] + (1..<8).map { "\(group).\($0)" } + [nil]
    do {
        try auth.useUserAccessGroup(group)
        auth.waitForLiveSyncStart()
        print("before \(processResources())")
        for round in 1...count { try auth.useUserAccessGroup(groups[round % groups.count]) }
        try auth.useUserAccessGroup(group)
        auth.waitForLiveSyncStart()
        print("after \(processResources())")
        print("live=\(auth.isLiveSyncActive)")
    } catch {
        FileHandle.standardError.write(Data("auth-probe: \(error)\n".utf8))
        exit(1)
    }
}
