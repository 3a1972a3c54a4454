import Foundation
import KeyringTestSupport
import Testing

/// A program shaped as a GTK app, without a display: GLibMainQueue runs the main queue, the main actor and an Auth's
/// callbacks from GLib's main loop on the main thread, in order, also what was queued while the loop was busy.
@Suite struct GLibMainQueueTests {
    @Test func theMainQueueAndAuthsCallbacksRunFromGLibsMainLoopInOrderNoneLost() async throws {
        let result = try await Subprocess.run(try Harness.product("main-queue-probe"), [], limit: .seconds(60))
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.output)\(result.standardError)")
        #expect(lines.count == 5 && lines.allSatisfy { $0.hasPrefix("ok ") }, "\(lines)")
    }
}

extension KeyringTests {
    /// `Examples/DesktopApp` as a person sees it: its two GTK windows on an X server (Xvfb), clicked with the pointer
    /// (xdotool), each following the other's sign-in and sign-out; a screenshot of both is saved.
    @Suite struct DesktopApp {
        init() throws { _ = try Harness.require() }

        /// Where the screenshot goes: `DESKTOP_APP_SCREENSHOT`, or `.build/desktop-app.png` in the package.
        static let screenshot: String = ProcessInfo.processInfo.environment["DESKTOP_APP_SCREENSHOT"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/desktop-app.png").path

        @Test func twoWindowsFollowEachOthersSignInAndSignOut() async throws {
            let server = try await XServer()
            defer { server.stop() }
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = server.display
            environment["GDK_BACKEND"] = "x11"
            environment["GSK_RENDERER"] = "cairo"  // Xvfb has no OpenGL
            environment["DESKTOP_APP_TESTING"] = "1"
            environment["GOOGLE_CLIENT_ID"] = nil
            let app = try LineChannel([try Harness.product("desktop-app-example")], environment: environment)
            let output = SeenLines(app)

            // Both windows show nobody, and say where their buttons are.
            try await output.wait(for: ["app-a shows signed-out", "app-b shows signed-out"])
            let layoutA = try await output.layout(of: "app-a"), layoutB = try await output.layout(of: "app-b")
            let windowA = try await server.window(named: "app-a"), windowB = try await server.window(named: "app-b")
            try await server.xdotool(["windowmove", "--sync", windowA, "10", "10"])
            try await server.xdotool(["windowmove", "--sync", windowB, "470", "10"])

            // A click on A's "Sign in anonymously": B shows the same user.
            try await server.click(windowA, at: try #require(layoutA["anonymous"]))
            let anonymous = try await output.line { $0.hasPrefix("app-a shows uid=") }.dropFirst("app-a shows ".count)
            #expect(anonymous.hasSuffix(" email=anonymous provider=anonymous verified=no"), "\(anonymous)")
            try await output.wait(for: ["app-b shows \(anonymous)"])

            // A click on B's "Sign out": A shows nobody.
            try await server.click(windowB, at: try #require(layoutB["sign-out"]))
            try await output.wait(for: ["app-b shows signed-out", "app-a shows signed-out"])

            // B's email form, typed into and sent: a new account, which A shows too. With no window manager, the
            // keyboard goes to the window that asked for it last, A or B: B is given it first.
            try await server.xdotool(["windowfocus", "--sync", windowB])
            try await server.click(windowB, at: try #require(layoutB["email-entry"]))
            try await output.wait(for: ["app-b focus email-entry"])  // keys typed before it would go elsewhere
            try await server.xdotool(["type", "ada@example.com"])
            try await server.click(windowB, at: try #require(layoutB["password-entry"]))
            try await output.wait(for: ["app-b focus password-entry"])
            try await server.xdotool(["type", "correct horse battery"])
            try await server.click(windowB, at: try #require(layoutB["email"]))
            let byEmail = try await output.line { $0.hasPrefix("app-b shows uid=") && !$0.hasSuffix(String(anonymous)) }
                .dropFirst("app-b shows ".count)
            #expect(byEmail.hasSuffix(" email=ada@example.com provider=password verified=no"), "\(byEmail)")
            try await output.wait(for: ["app-a shows \(byEmail)"])
            try await server.screenshot(to: Self.screenshot)

            // The windows end with the launcher (their input ends); the output ends when all three have.
            app.child.send(SIGTERM)
            try await output.waitForEnd()
            #expect(output.all.filter { $0.contains(" error ") }.isEmpty, "\(output.all)")
        }
    }
}

/// An X server of its own (Xvfb) on a free display number, for the desktop app's windows.
private final class XServer: Sendable {
    let display: String
    private let server: LineChannel

    init() async throws {
        guard let xvfb = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Subprocess.Failure(description: "Xvfb is not installed (dbus/install-deps installs xvfb)")
        }
        // -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
        server = try LineChannel([xvfb, "-displayfd", "1", "-screen", "0", "900x340x24", "-nolisten", "tcp"])
        display = ":" + (try await server.nextLine(within: .seconds(20)))
    }

    func stop() { server.child.send(SIGTERM) }

    @discardableResult
    func xdotool(_ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run("xdotool", arguments, environment: ["DISPLAY": display], limit: .seconds(20))
        try result.requireSuccess("xdotool \(arguments.joined(separator: " "))")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The visible window whose title ends with `name`.
    func window(named name: String) async throws -> String {
        let found = try await xdotool(["search", "--onlyvisible", "--name", "\(name)$"]).split(separator: "\n")
        guard found.count == 1, let window = found.first else {
            throw Subprocess.Failure(description: "\(found.count) visible windows named …\(name)")
        }
        return String(window)
    }

    /// Moves the pointer to `point` in `window` and clicks the first button there.
    func click(_ window: String, at point: (x: Int, y: Int)) async throws {
        try await xdotool(["mousemove", "--sync", "--window", window, "\(point.x)", "\(point.y)", "click", "1"])
    }

    /// The whole screen as a PNG file at `path` (xwd, then netpbm).
    func screenshot(to path: String) async throws {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        let result = try await Subprocess.run(
            "/bin/sh", ["-c", "xwd -root -silent -display \"$1\" | xwdtopnm 2>/dev/null | pnmtopng > \"$2\"", "sh", display, path])
        try result.requireSuccess("the screenshot")
        let png = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 4096, "\(path): \(png.count) bytes")
    }
}

/// Every line a program printed so far, waited on in any order (the two windows print as they go).
private final class SeenLines {
    private let channel: LineChannel
    private(set) var all: [String] = []

    init(_ channel: LineChannel) { self.channel = channel }

    /// The first line, printed so far or next, that satisfies `predicate`.
    ///
    /// - Throws: `Subprocess.Failure` at the first line that reports an error, or after 30 s without a line.
    func line(where predicate: (String) -> Bool) async throws -> String {
        if let seen = all.first(where: predicate) { return seen }
        while true {
            let next = try await channel.nextLine(within: .seconds(30))
            all.append(next)
            if predicate(next) { return next }
            if next.contains(" error ") { throw Subprocess.Failure(description: "the app reported \(next); before it: \(all)") }
        }
    }

    func wait(for lines: [String]) async throws {
        for expected in lines { _ = try await line { $0 == expected } }
    }

    /// Where `app`'s buttons are: its line `APP layout anonymous=X,Y … sign-out=X,Y`.
    func layout(of app: String) async throws -> [String: (x: Int, y: Int)] {
        let line = try await line { $0.hasPrefix("\(app) layout ") }
        var places: [String: (x: Int, y: Int)] = [:]
        for field in line.dropFirst("\(app) layout ".count).split(separator: " ") {
            let parts = field.split(separator: "=")
            let numbers = parts.last?.split(separator: ",").compactMap { Int($0) } ?? []
            if parts.count == 2, numbers.count == 2 { places[String(parts[0])] = (numbers[0], numbers[1]) }
        }
        return places
    }

    /// Waits until the output ends: every process that holds it has exited.
    func waitForEnd() async throws {
        while !channel.lines.isClosed {
            if let next = try? await channel.lines.next(within: .seconds(30)) { all.append(next) } else { break }
        }
        #expect(channel.lines.isClosed, "the desktop app's output had not ended 30 s after the launcher was stopped")
    }
}
