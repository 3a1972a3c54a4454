// Two apps of one access group, each a process of its own, sharing one sign-in through the Secret
// Service: app-a signs in, app-b (running) sees the same user at once, a new launch of app-b sees it
// too, app-a signs out and app-b sees that. The identity backend is the bundled Auth emulator, in
// app-a's process. It touches a keyring, so run it on a throwaway one:
//
//     dbus/with-keyring swift run two-apps-example
//
// One executable plays both apps: run without arguments it is app-a, and it starts itself as app-b
// (`two-apps-example app-b`). Exit status 0 when app-b saw what app-a did, 1 otherwise. Getting started shows
// app-b's three lines that make an app (a test checks they appear here verbatim).
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import Logging

/// The group both apps share, and the project both apps belong to.
let group = "TEAMID.com.example.shared"
let projectID = "demo-keyring-auth"

/// Prints a line at once (standard output into a pipe is otherwise buffered).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// App B: shares the group's user and prints it; running, it prints each change as it happens until it
/// has seen a sign-in and a sign-out. The project's API key and the emulator's address come from the
/// environment app-a starts it with (FIREBASE_AUTH_EMULATOR_HOST, read when the backend is created).
func appB(running: Bool) async throws -> Int32 {
    let apiKey = ProcessInfo.processInfo.environment["TWO_APPS_API_KEY"] ?? "AIzaSyExample"
    endWhenAppAEnds()
    var seenSignIn = false
    let options = AuthAppOptions(apiKey: apiKey, appID: "1:1234567890:linux:app-b", projectID: "demo-keyring-auth")
    let auth = Auth.configure(AuthConfiguration(options: options))
    try auth.useUserAccessGroup("TEAMID.com.example.shared")
    for await user in auth.authStateChanges {  // who is signed in now, then each change as it happens
        say("app-b sees \(user?.uid ?? "nobody")")
        if !running || (seenSignIn && user == nil) { return 0 }
        seenSignIn = seenSignIn || user != nil
    }
    return 1
}

/// Ends this process (app-b) when app-a's process ends, which closes app-b's standard input.
func endWhenAppAEnds() {
    Thread {
        while !FileHandle.standardInput.availableData.isEmpty {}
        exit(1)
    }.start()
}

/// App A: starts the emulator and app-b, signs in and out, and checks what app-b saw.
func appA() async throws -> Int32 {
    var logger = Logger(label: "two-apps-example")
    logger.logLevel = .warning
    let emulator = AuthEmulator(configuration: .init(port: 0, projectID: projectID, logger: logger))
    let address = try await emulator.start()
    // A fresh API key each run, so that nothing an earlier run left in the keyring is seen.
    let apiKey = "AIza-two-apps-\(UUID().uuidString.prefix(8))"
    var environment = ProcessInfo.processInfo.environment
    environment["TWO_APPS_API_KEY"] = apiKey
    environment["FIREBASE_AUTH_EMULATOR_HOST"] = "\(address)"
    say("Two apps of the access group \(group), each a process of its own, share one sign-in.")
    say("  identity backend: the bundled Auth emulator at \(address), in app-a's process")

    let appB = try ChildApp(arguments: ["app-b"], environment: environment)
    var failures = 0
    func expect(_ line: String?, _ expected: String) {
        say(line ?? "app-b said nothing more")
        if line != expected {
            failures += 1
            say("  NOT AS EXPECTED: \(expected)")
        }
    }
    expect(await appB.nextLine(), "app-b sees nobody")

    let options = AuthAppOptions(apiKey: apiKey, appID: "1:1234567890:linux:app-a", projectID: projectID)
    let auth = Auth.configure(AuthConfiguration(options: options))
    auth.useEmulator(withHost: address.host, port: address.port)
    try auth.useUserAccessGroup(group)
    let user = try await auth.signInAnonymously().user
    say("app-a signs in: \(user.uid)")
    expect(await appB.nextLine(), "app-b sees \(user.uid)")
    let relaunched = try ChildApp(arguments: ["app-b", "--once"], environment: environment)
    expect(await relaunched.nextLine().map { "\($0) (launched again)" }, "app-b sees \(user.uid) (launched again)")
    _ = await relaunched.exitStatus()

    try auth.signOut()
    say("app-a signs out")
    expect(await appB.nextLine(), "app-b sees nobody")
    let status = await appB.exitStatus()
    if status != 0 {
        failures += 1
        say("  NOT AS EXPECTED: app-b exited with \(status)")
    }
    await emulator.stop()
    say(failures == 0
        ? "Both apps shared one sign-in: app-b saw app-a's sign-in and sign-out as they happened."
        : "\(failures) step(s) did not behave as expected.")
    return failures == 0 ? 0 : 1
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    let status = arguments.first == "app-b"
        ? try await appB(running: !arguments.contains("--once"))
        : try await appA()
    exit(status)
} catch {
    FileHandle.standardError.write(Data("two-apps-example \(arguments.first ?? "app-a"): \(error)\n".utf8))
    exit(1)
}
