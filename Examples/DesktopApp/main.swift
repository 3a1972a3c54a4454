// A GTK 4 app: each window is an app of the access group TEAMID.com.example.shared, in a process of its own;
// signing in or out in one window shows in the other at once. The identity backend is the bundled Auth
// emulator. It touches a keyring, so run it on a throwaway one, with its windows on your display:
//
//     dbus/with-keyring --display swift run desktop-app-example
//
// Run without arguments it starts the emulator and two windows, app-a and app-b (`desktop-app-example window
// NAME`, which also write each state they show to standard output), and ends when both are closed. With
// GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET set (a Google "Desktop app" OAuth client), Sign in with Google
// opens your browser. Getting started, "A desktop app with GTK", explains the pattern.
import CGtk
import Dispatch
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import SecretKeychain

/// The group both windows share.
let group = "TEAMID.com.example.shared"

/// The window of app `name`: GTK's main loop on the main thread, with the dispatch main queue (and so the main
/// actor and the listeners) run from it.
@MainActor
func runWindow(name: String, endWithInput: Bool) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    let options = AuthAppOptions(
        apiKey: environment["DESKTOP_APP_API_KEY", default: "AIzaSyExample"], appID: "1:1234567890:linux:\(name)",
        projectID: "demo-keyring-auth")
    let application = gtk_application_new(nil, G_APPLICATION_NON_UNIQUE)!
    defer { g_object_unref(application) }
    if endWithInput { quitWhenInputEnds(application) }

    GLibMainQueue.attach()  // DispatchQueue.main, and with it the main actor, now run inside GTK's main loop
    let auth = Auth.configure(AuthConfiguration(options: options, callbackQueue: .main))  // callbacks on GTK's thread
    GObjectSignals.connect(application, "activate") {
        let window = AuthWindow(application: application, name: name, auth: auth)
        auth.addIDTokenDidChangeListener { _, user in
            MainActor.assumeIsolated { window.show(user) }  // on the main thread: widgets may be touched
        }
        window.present()
    }

    do {
        try auth.useUserAccessGroup(group)
    } catch {
        FileHandle.standardError.write(Data("desktop-app-example \(name): \(error)\n".utf8))
        return 1
    }
    return g_application_run(UnsafeMutableRawPointer(application).assumingMemoryBound(to: GApplication.self), 0, nil)
}

/// Quits `application` when standard input ends: the launcher holds the other end, so a window does not outlive
/// it (this executable's children are in process groups of their own, which a Ctrl-C does not reach).
@MainActor
func quitWhenInputEnds(_ application: UnsafeMutablePointer<GtkApplication>) {
    let input = g_io_channel_unix_new(STDIN_FILENO)
    defer { g_io_channel_unref(input) }
    let condition = GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
    g_io_add_watch(input, condition, { _, _, application in
        var buffer = [UInt8](repeating: 0, count: 512)
        guard read(STDIN_FILENO, &buffer, buffer.count) <= 0 else { return 1 }  // G_SOURCE_CONTINUE
        g_application_quit(application?.assumingMemoryBound(to: GApplication.self))
        return 0  // G_SOURCE_REMOVE
    }, application)
}

/// Starts the emulator and the two windows, and waits until both are closed.
func runLauncher() async -> Int32 {
    let emulator = AuthEmulator(configuration: .init(port: 0, projectID: "demo-keyring-auth"))
    let address: AuthEmulator.Address
    do {
        address = try await emulator.start()
    } catch {
        FileHandle.standardError.write(Data("desktop-app-example: cannot start the emulator: \(error)\n".utf8))
        return 1
    }
    var environment = ProcessInfo.processInfo.environment
    environment["FIREBASE_AUTH_EMULATOR_HOST"] = "\(address)"
    // A fresh API key each run, so that nothing an earlier run left in the keyring is seen.
    environment["DESKTOP_APP_API_KEY"] = "AIza-desktop-\(UUID().uuidString.prefix(8))"
    // A private session bus, as dbus/with-keyring's, has no accessibility bus for GTK to find (it would warn).
    if environment["GTK_A11Y"] == nil { environment["GTK_A11Y"] = "none" }
    var statuses: [Int32] = []
    do {
        let windows = try ["app-a", "app-b"].map { try Window($0, environment: environment) }
        for window in windows { statuses.append(await window.exitStatus()) }
    } catch {
        FileHandle.standardError.write(Data("desktop-app-example: cannot start a window: \(error)\n".utf8))
        statuses.append(1)
    }
    await emulator.stop()
    return statuses.allSatisfy { $0 == 0 } ? 0 : 1
}

/// This executable run again as a window. Its input is a pipe this process holds the other end of, never written to:
/// it ends when this process does, and the window with it.
struct Window {
    private let exits: AsyncStream<Int32>
    private let launcherEnd: FileHandle

    /// Starts window `name`. Windows are started one after the other, so that none inherits another's pipe.
    init(_ name: String, environment: [String: String]) throws {
        let input = Pipe()
        launcherEnd = input.fileHandleForWriting
        // Close-on-exec before any other start: only this process holds the writing end.
        _ = fcntl(launcherEnd.fileDescriptor, F_SETFD, FD_CLOEXEC)
        let process = Process()
        process.executableURL = Bundle.main.executableURL
        process.arguments = ["window", name, "--end-with-input"]
        process.environment = environment
        process.standardInput = input
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        self.exits = exits
        process.terminationHandler = { exited.yield($0.terminationStatus); exited.finish() }
        try process.run()
    }

    /// Waits until the window is closed, and returns its exit status.
    func exitStatus() async -> Int32 {
        for await status in exits { return status }
        return 1
    }
}

// The top level is synchronous: a GTK app's main thread belongs to GTK's main loop, not to dispatch_main().
let arguments = Array(CommandLine.arguments.dropFirst())
if (2...3).contains(arguments.count), arguments[0] == "window" {
    let endWithInput = arguments.count == 3 && arguments[2] == "--end-with-input"
    exit(MainActor.assumeIsolated { runWindow(name: arguments[1], endWithInput: endWithInput) })
}
Task { exit(await runLauncher()) }
dispatchMain()
