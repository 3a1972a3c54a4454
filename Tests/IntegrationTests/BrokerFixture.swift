import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import Logging
import SecretKeychain
import SystemSupport

/// The broker as a session has it: `keyring-auth-broker` D-Bus-activated on the harness's bus (its service
/// file in `$KEYRING_AUTH_HARNESS_SERVICES`), signing in with an emulator of the test's own, and clients
/// in other languages, in Flatpak-like sandboxes or on the host.
struct BrokerFixture {
    static let name = "io.github.keyringauth.Broker1"
    static let group = "TEAMID.com.example.shared"

    let harness: Harness
    let emulator: AuthEmulator
    let address: AuthEmulator.Address
    /// The app every client uses: an API key of the test's own.
    let app: [String: String]
    let packageRoot: URL

    /// Starts an emulator, points the broker's activation at it, and stops any broker an earlier test left running. The
    /// group starts empty: what earlier tests' apps (each of an API key of its own) left there is removed, as it would
    /// otherwise take from the share of items the broker keeps for each sandboxed app. With `recaptcha`, the emulator's
    /// stand-in reCAPTCHA enforces as it says; with `appCheck`, the emulator has App Check as it says (its debug tokens,
    /// whether Auth's calls need a token).
    static func start(
        idleTimeout: Int = 120, tokenLifetime: Duration = .seconds(3600), recaptcha: AuthEmulator.StandInRecaptcha? = nil,
        appCheck: AuthEmulator.AppCheckSettings? = nil
    ) async throws -> BrokerFixture {
        let harness = try Harness.require()
        _ = try await SecretServiceStore().removeAll(in: AccessGroup(group))
        var logger = Logger(label: "BrokerTests")
        logger.logLevel = .warning
        let emulator = AuthEmulator(
            configuration: .init(port: 0, tokenLifetime: tokenLifetime, logger: logger, recaptcha: recaptcha, appCheck: appCheck))
        let address = try await emulator.start()
        let fixture = BrokerFixture(
            harness: harness, emulator: emulator, address: address,
            app: [
                "apiKey": "AIza-broker-\(UUID().uuidString.prefix(8))", "appID": "1:42:linux:broker", "projectID": "demo-keyring-auth",
                "emulatorHost": address.description,
            ],
            packageRoot: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        try await fixture.stopBroker()
        try await fixture.installService(idleTimeout: idleTimeout, emulatorHost: address.description)
        return fixture
    }

    /// The service file, as `scripts/install` writes it, naming the built broker (after `launcher`'s words, a program
    /// that runs the broker, when given); and `FIREBASE_AUTH_EMULATOR_HOST` in the activation environment, as a
    /// developer's session may pass it on (the broker heeds only the apps' own `emulatorHost`); `path` first on its `PATH`
    /// (a browser's `xdg-open`), and `environment`'s variables besides.
    func installService(
        idleTimeout: Int, emulatorHost: String, path: String? = nil, arguments: [String] = [], launcher: [String] = [],
        environment: [String: String] = [:]
    ) async throws {
        guard let services = ProcessInfo.processInfo.environment["KEYRING_AUTH_HARNESS_SERVICES"] else {
            throw BrokerTestFailure(description: "no KEYRING_AUTH_HARNESS_SERVICES: run the tests under dbus/with-keyring")
        }
        let file = "[D-BUS Service]\nName=\(Self.name)\nExec=" + launcher.map { $0 + " " }.joined()
            + "\(try Harness.product("keyring-auth-broker")) --idle-timeout \(idleTimeout)" + arguments.map { " " + $0 }.joined() + "\n"
        try Data(file.utf8).write(to: URL(fileURLWithPath: services).appendingPathComponent("\(Self.name).service"))
        let systemPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // The bus keeps each variable once set: one a test set is set back for the next (an empty value is unset to the broker).
        let variables = Self.resetVariables.merging(environment) { _, given in given }.merging(
            ["FIREBASE_AUTH_EMULATOR_HOST": emulatorHost, "PATH": "\(path.map { $0 + ":" } ?? "")\(systemPath)"]) { _, fixed in fixed }
        try await busCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.UpdateActivationEnvironment",
            ["{" + variables.sorted { $0.key < $1.key }.map { "'\($0.key)': '\($0.value)'" }.joined(separator: ", ") + "}"])
            .requireSuccess("UpdateActivationEnvironment")
        try await busCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig", [])
            .requireSuccess("ReloadConfig")
    }

    /// The variables a test may set in the activation environment, as they are when it does not.
    static let resetVariables = ["KEYRING_AUTH_EMULATOR_VERIFIES_APPS": ""]

    /// `dbus/run-as-flatpak` for `appID`, with `readOnly` paths bound in, and the network (the app's emulator is on
    /// loopback, which the broker reaches for it only when it could itself) unless `network` is false. With
    /// `emulatorVariable`, the app's own `FIREBASE_AUTH_EMULATOR_HOST` names the fixture's emulator, as a developer's would.
    func sandbox(appID: String, readOnly: [String] = [], network: Bool = true, emulatorVariable: Bool = false) -> [String] {
        [harness.scripts.appendingPathComponent("run-as-flatpak").path] + (network ? ["--share=network"] : [])
            + (emulatorVariable ? ["--env", "FIREBASE_AUTH_EMULATOR_HOST=\(app["emulatorHost"]!)"] : [])
            + readOnly.flatMap { ["--ro", $0] } + [appID]
    }

    /// A launcher for ``installService(idleTimeout:emulatorHost:path:arguments:launcher:)`` that sends the activated
    /// broker's standard error (its log) to a file of the harness's, and that file.
    func loggingLauncher() throws -> (launcher: [String], log: String) {
        let directory = harness.root.appendingPathComponent("broker-log-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (script, log) = (directory.appendingPathComponent("launch").path, directory.appendingPathComponent("broker.log").path)
        try Data("#!/bin/sh\nexec \"$@\" 2>>\"\(log)\"\n".utf8).write(to: URL(fileURLWithPath: script))
        try Data().write(to: URL(fileURLWithPath: log))
        guard chmod(script, 0o755) == 0 else { throw BrokerTestFailure(description: "chmod \(script) failed") }
        return ([script], log)
    }

    /// The running broker's process ID, or `nil` when none runs.
    func brokerPID() async throws -> pid_t? {
        let result = try await busCall(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", [Self.name])
        guard result.status == 0 else { return nil }
        let text = String(decoding: result.standardOutput, as: UTF8.self)
        return pid_t(text.filter(\.isNumber).dropFirst(text.hasPrefix("(uint32") ? 2 : 0))
    }

    /// Activates brokers that take `github` as GitHub's host (`--github-host`) from now on, stopping the one running.
    func serveGitHub(_ github: FakeGitHub, browserPath: String? = nil) async throws {
        try await stopBroker()
        try await installService(
            idleTimeout: 120, emulatorHost: address.description, path: browserPath, arguments: ["--github-host", github.base.absoluteString])
    }

    /// Kills the running broker, if any (SIGKILL: nothing of it runs after), and waits until its name is free.
    func stopBroker() async throws {
        guard let pid = try await brokerPID() else { return }
        kill(pid, SIGKILL)
        let waited = try await Subprocess.run("sh", ["-c", "while gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus "
            + "-m org.freedesktop.DBus.NameHasOwner \(Self.name) | grep -q true; do sleep 0.05; done"], limit: .seconds(30))
        try waited.requireSuccess("waiting for the broker's name to be free")
    }

    /// `gdbus call` on the session bus.
    func busCall(_ destination: String, _ path: String, _ method: String, _ arguments: [String]) async throws -> Subprocess.Result {
        try await Subprocess.run("gdbus", ["call", "--session", "--dest", destination, "--object-path", path, "--method", method] + arguments)
    }

    /// The app as a `gdbus call` argument.
    var appArgument: String { Self.argument(app) }

    /// The app as an app of Firebase's would name it: no emulator.
    var appWithoutEmulator: [String: String] { app.filter { $0.key != "emulatorHost" } }

    /// `app` as a `gdbus call` argument.
    static func argument(_ app: [String: String]) -> String {
        "{" + app.sorted { $0.key < $1.key }.map { "'\($0.key)': <'\($0.value)'>" }.joined(separator: ", ") + "}"
    }

    /// Calls one of the broker's methods with `gdbus`, as a shell script does, as `app` (the fixture's by default).
    func call(
        _ method: String, group: String = group, _ arguments: [String] = [], app: [String: String]? = nil
    ) async throws -> Subprocess.Result {
        try await busCall(Self.name, "/io/github/keyringauth/Broker1", "\(Self.name).\(method)", [Self.argument(app ?? self.app), group] + arguments)
    }

    var pythonClient: String { packageRoot.appendingPathComponent("Examples/BrokerClients/python/broker_client.py").path }

    /// The Python client (Gio), as the Flatpak app `appID` when given (`dbus/run-as-flatpak`), else on the host;
    /// started, and ready when this returns.
    func python(as appID: String?, group: String = group, app: [String: String]? = nil) async throws -> LineChannel {
        let appJSON = String(decoding: try JSONSerialization.data(withJSONObject: app ?? self.app, options: .sortedKeys), as: UTF8.self)
        let command = ["/usr/bin/python3", pythonClient, appJSON, group]
        let arguments = appID.map { sandbox(appID: $0, readOnly: [pythonClient]) + command } ?? command
        let client = try LineChannel(arguments)
        let ready = try await client.nextLine(within: .seconds(60))
        guard ready == "ready" else { throw BrokerTestFailure(description: "the Python client said \(ready): \(client.standardError)") }
        return client
    }

    /// Sends `command` and returns the client's answer, skipping `changed` lines (kept for ``nextChange(of:)``).
    func ask(_ client: LineChannel, _ command: String) async throws -> String {
        client.send(command)
        return try await client.nextLine(within: .seconds(60)) { !$0.hasPrefix("changed ") }
    }

    /// The next `UserChanged` the client printed: the user as JSON.
    func nextChange(of client: LineChannel) async throws -> [String: Any] {
        let line = try await client.nextLine(within: .seconds(60)) { $0.hasPrefix("changed ") }
        return try Self.user(in: String(line.dropFirst("changed ".count)))
    }

    /// The next `UserChanged` the client printed whose user satisfies `predicate`, skipping earlier ones.
    func nextChange(of client: LineChannel, where predicate: ([String: Any]) -> Bool) async throws -> [String: Any] {
        while true {
            let user = try await nextChange(of: client)
            if predicate(user) { return user }
        }
    }

    /// The user of a `user {...}` answer.
    static func user(in answer: String) throws -> [String: Any] {
        let json = answer.hasPrefix("user ") ? String(answer.dropFirst(5)) : answer
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    }

    /// A Swift app of the group on the harness's keyring, following it live, signing in with the emulator.
    func swiftApp(_ name: String = "swift-app", tokenRefresh: TokenRefreshPolicy = .standard) throws -> Auth {
        let options = AuthAppOptions(
            appName: name, apiKey: app["apiKey"]!, appID: "1:42:linux:\(name)", projectID: app["projectID"]!)
        let backend = IdentityToolkitBackend(apiKey: options.apiKey, endpoint: try .emulator(host: address.host, port: address.port))
        return Auth(configuration: AuthConfiguration(
            options: options, store: SecretServiceStore(), backend: backend,
            groupChoices: .pinned(to: try AccessGroup(Self.group), forAppID: options.appID), tokenRefresh: tokenRefresh))
    }
}

struct BrokerTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// An HTTP forwarder in front of the emulator that holds every token refresh (`/token` on the secure-token
/// path) until ``open()``: `refreshes` gets one event per refresh request that arrives. One request per
/// connection (`Connection: close` towards both sides).
final class GatedForwarder: Sendable {
    let port: Int
    let refreshes = Mailbox<Void>()
    private let listener: Int32
    private let gate = Mailbox<Void>()

    init(to target: AuthEmulator.Address) throws {
        (listener, port) = try RawTCP.silentListener()
        let (listener, refreshes, gate) = (listener, refreshes, gate)
        try OwnThread.detach(name: "proxy-accept") {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                do {
                    try OwnThread.detach(name: "proxy-forward") { Self.forward(connection, to: target, refreshes: refreshes, gate: gate) }
                } catch {
                    close(connection)
                }
            }
        }
    }

    /// Lets every held and later refresh through.
    func open() {
        gate.post(())
        gate.close()
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private static func forward(_ connection: Int32, to target: AuthEmulator.Address, refreshes: Mailbox<Void>, gate: Mailbox<Void>) {
        defer { close(connection) }
        guard var request = readRequest(connection), let headerEnd = request.range(of: Data("\r\n".utf8)) else { return }
        let requestLine = String(decoding: request[..<headerEnd.lowerBound], as: UTF8.self)
        if requestLine.contains("/token") {
            refreshes.post(())
            let held = DispatchSemaphore(value: 0)
            Task { _ = try? await gate.next(within: .seconds(120)); held.signal() }
            held.wait()
        }
        request.insert(contentsOf: Data("Connection: close\r\n".utf8), at: headerEnd.upperBound)
        guard let answer = try? RawTCP.exchange(host: target.host, port: target.port, bytes: Array(request), halfClose: false) else { return }
        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One request: its head, and as many bytes of body as its Content-Length says.
    private static func readRequest(_ connection: Int32) -> Data? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = received.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end.upperBound + length { return received }
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
    }
}
