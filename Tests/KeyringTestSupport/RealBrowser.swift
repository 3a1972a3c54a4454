import Foundation
import KeyringAuth
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// The user's browser for real, beside ``FakeBrowser``: Debian's `chromium`, headless, driven through `chromedriver`
/// by `Tests/Browser/chromium_browser.py`, which performs a scripted person's ``Step``s and writes the page the
/// browser was left on to a file (``Run``). A directory holds an `xdg-open` that runs it: put ``path`` first on the
/// `PATH` of whoever opens the browser, or give an app ``desktopBrowser``. Each run launches chromium anew (seconds).
package struct RealBrowser: Sendable {
    /// What the person does, in order, once the opened URL has loaded; every wait is bounded (``timeout``).
    package enum Step: Sendable {
        /// At the bundled emulator's provider page: the listed account of `email`, else a new one made with the form.
        case emulatorSignIn(email: String, displayName: String? = nil)
        /// At that page: "Decline".
        case emulatorDecline
        case open(URL)
        /// Clicks the element `selector` (CSS) once it is shown, inside the iframe `frame` (CSS) if given.
        case click(String, frame: String? = nil)
        case type(String, text: String, frame: String? = nil)
        case waitForText(String)
        case waitForURL(containing: String)
        /// Records the page as it is now, in ``Run/pages``.
        case capture

        var json: [String: Any] {
            switch self {
            case .emulatorSignIn(let email, let displayName):
                return ["emulator_idp": ["email": email, "displayName": displayName ?? ""]]
            case .emulatorDecline: return ["emulator_idp": "decline"]
            case .open(let url): return ["open": url.absoluteString]
            case .click(let selector, let frame): return ["click": selector].merging(frame.map { ["frame": $0] } ?? [:]) { a, _ in a }
            case .type(let selector, let text, let frame):
                return ["type": selector, "text": text].merging(frame.map { ["frame": $0] } ?? [:]) { a, _ in a }
            case .waitForText(let text): return ["wait_text": text]
            case .waitForURL(let text): return ["wait_url": text]
            case .capture: return ["capture": true]
            }
        }
    }

    /// A page as the person sees it: its address, title and visible text (`innerText`).
    package struct Page: Sendable, Decodable {
        package let url: String
        package let title: String
        package let text: String
    }

    /// One run of the browser: the page it was left on, the pages captured on the way, and what it chose at the
    /// emulator's page (`"new EMAIL"`, `"listed EMAIL"`, `"decline"`).
    package struct Run: Sendable, Decodable {
        package let ok: Bool
        package let error: String?
        package let final: Page?
        package let pages: [Page]
        package let choices: [String]
        /// From the driver's start to its processes' end.
        package let seconds: Double
        /// Whether chromium ran with its sandbox (as `nobody` when the tests run as root).
        package let sandbox: Bool
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The repository's `Tests/Browser/chromium_browser.py`.
    package static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/chromium_browser.py")

    package let directory: URL
    /// Each wait of a run, at most (the driver's script `timeout`).
    package let timeout: Duration
    package var path: String { directory.path }
    private var scriptFile: URL { directory.appendingPathComponent("script.json") }
    private var resultFile: URL { directory.appendingPathComponent("result.json") }

    /// A browser whose person takes `steps` at each URL opened.
    ///
    /// - Throws: ``Failure`` when chromium or chromedriver is not installed (`dbus/install-deps` installs both).
    package static func make(_ steps: [Step] = [.emulatorSignIn(email: "ada@example.com", displayName: "Ada")], timeout: Duration = .seconds(90))
        throws -> RealBrowser
    {
        for program in ["/usr/lib/chromium/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: program) {
            throw Failure(description: "\(program) is missing: dbus/install-deps installs Debian's chromium and chromium-driver")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("real-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let browser = RealBrowser(directory: directory, timeout: timeout)
        try browser.setSteps(steps)
        let shim = directory.appendingPathComponent("xdg-open")
        try """
            #!/bin/sh
            exec python3 '\(driver.path)' --script '\(browser.scriptFile.path)' --result '\(browser.resultFile.path)' "$1" 2>> '\(directory.path)/driver.log'

            """.write(to: shim, atomically: true, encoding: .utf8)
        chmod(shim.path, 0o755)
        return browser
    }

    /// Deletes the directory (a run still going on writes its result nowhere).
    package func remove() { try? FileManager.default.removeItem(at: directory) }

    /// The steps of the next runs.
    package func setSteps(_ steps: [Step]) throws {
        let object: [String: Any] = ["steps": steps.map(\.json), "timeout": Double(timeout.components.seconds)]
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: scriptFile, options: .atomic)
    }

    /// This browser for an app: runs the `xdg-open` with the URL, without waiting.
    package var desktopBrowser: DesktopBrowser {
        let shim = directory.appendingPathComponent("xdg-open").path
        return .custom { url in Spawn.detached(shim, [url.absoluteString]) }
    }

    /// This browser for an app, where the person starts at the URL `visit` makes of the opened one and takes its steps.
    package func desktopBrowser(_ visit: @escaping @Sendable (URL) -> (start: URL, steps: [Step])) -> DesktopBrowser {
        let shim = directory.appendingPathComponent("xdg-open").path
        return .custom { url in
            let (start, steps) = visit(url)
            do { try setSteps(steps) } catch { return "the steps were not written: \(error)" }
            return Spawn.detached(shim, [start.absoluteString])
        }
    }

    /// The next run's result, once the driver has written it (and taken away, for the run after): at most `limit`.
    ///
    /// - Throws: ``Failure`` when no run ended within `limit`, or the run failed (its error and the page it was on).
    package func nextRun(within limit: Duration = .seconds(300)) async throws -> Run {
        let run = try await result(within: limit)
        if let failure = Self.failure(of: .success(run)) { throw Failure(description: "the browser failed: \(failure)") }
        return run
    }

    /// What `signIn` (which opens this browser) gives, and the browser's run. A run that fails first cancels `signIn`
    /// (no wait for the app's time limit); a `signIn` that fails is told with what the browser met (waited for 60 s).
    package func run<T: Sendable>(_ signIn: @escaping @Sendable () async throws -> T) async throws -> (T, Run) {
        try await withThrowingTaskGroup(of: RunOutcome<T>.self) { group in
            group.addTask {
                do { return .signedIn(.success(try await signIn())) } catch { return .signedIn(.failure(error)) }
            }
            group.addTask {
                do { return .browsed(.success(try await result(within: .seconds(300)))) } catch { return .browsed(.failure(error)) }
            }
            var (signedIn, browsed): (Result<T, any Error>?, Result<Run, any Error>?) = (nil, nil)
            while signedIn == nil || browsed == nil, let next = try await group.next() {
                switch next {
                case .signedIn(let outcome):
                    signedIn = outcome
                    if case .failure = outcome, browsed == nil {
                        group.addTask {
                            try? await Task.sleep(for: .seconds(60))
                            return .browsed(.failure(Failure(description: "no run ended within 60 s of the sign-in's failure")))
                        }
                    }
                case .browsed(let outcome):
                    browsed = browsed ?? outcome
                    if signedIn == nil, let failure = Self.failure(of: outcome) {
                        group.cancelAll()
                        throw Failure(description: "the browser failed before the sign-in ended: \(failure)")
                    }
                }
            }
            group.cancelAll()
            switch (signedIn, browsed) {
            case (.success(let value)?, .success(let run)?) where run.ok: return (value, run)
            case (.failure(let error)?, let browsed):
                throw Failure(description: "the sign-in failed: \(error); the browser: \(browsed.flatMap(Self.failure(of:)) ?? "ok")")
            default: throw Failure(description: "the browser failed: \(browsed.flatMap(Self.failure(of:)) ?? "no run")")
            }
        }
    }

    /// What went wrong in a run, with the page it was on; `nil` for a run that went well.
    private static func failure(of outcome: Result<Run, any Error>) -> String? {
        switch outcome {
        case .failure(let error): return "\(error)"
        case .success(let run) where !run.ok: return "\(run.error ?? "?"); its page: \(run.final.map { "\($0.url) \($0.text)" } ?? "none")"
        case .success: return nil
        }
    }

    private func result(within limit: Duration) async throws -> Run {
        let deadline = ContinuousClock.now + limit
        while !FileManager.default.fileExists(atPath: resultFile.path) {
            guard ContinuousClock.now < deadline else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("driver.log"), encoding: .utf8)) ?? ""
                throw Failure(description: "no browser run ended within \(limit); the driver's log: \(log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let data = try Data(contentsOf: resultFile)
        try FileManager.default.removeItem(at: resultFile)
        return try JSONDecoder().decode(Run.self, from: data)
    }
}

/// What finished first in ``RealBrowser/run(_:)``: the app's sign-in, or the browser's run.
private enum RunOutcome<T: Sendable>: Sendable {
    case signedIn(Result<T, any Error>)
    case browsed(Result<Run, any Error>)

    typealias Run = RealBrowser.Run
}
