import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import Logging
import SecretKeychain

/// Which store and collection, how long a D-Bus call may take, whether to log.
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The store: automatic (the Secret Service; in a sandbox that cannot reach it, the portal keyring and the broker), "
            + "secret-service, portal (a sandboxed app's own keyring), broker (keyring-auth-broker), or memory (nothing kept "
            + "after the command)."))
    var store: StoreKind = .automatic

    @Option(help: "The collection: default, session, or a D-Bus object path.")
    var collection: String = "default"

    @Option(help: ArgumentHelp("The longest any one D-Bus call may take, in seconds.", valueName: "seconds"))
    var timeout: Double = 5

    @Flag(help: "Log to standard error.")
    var verbose = false

    enum StoreKind: String, ExpressibleByArgument, CaseIterable {
        case automatic
        case secretService = "secret-service"
        case portal
        case broker
        case memory
    }

    func validate() throws {
        guard SecretServiceStore.Collection(argument: collection) != nil else {
            let reason = SecretServiceStore.Collection.objectPathViolation(in: collection) ?? "unknown"
            throw ValidationError(
                "--collection takes default, session, or a D-Bus object path such as /org/freedesktop/secrets/collection/login; "
                    + "\(collection.debugDescription) is not one: \(reason)")
        }
        // Whole milliseconds reach the store: anything under one would become no time at all.
        guard timeout.isFinite, timeout >= Self.timeoutRange.lowerBound, timeout <= Self.timeoutRange.upperBound else {
            throw ValidationError("--timeout takes a number of seconds from 0.001 (1 ms) to 3600")
        }
    }

    /// The `--timeout` values accepted, in seconds.
    static let timeoutRange = 0.001...3600.0

    /// A logger to standard error (standard output carries the command's answer).
    var logger: Logger {
        var logger = Logger(label: "keyring-auth") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .debug : .critical
        return logger
    }

    /// `--timeout`.
    var callLimit: Duration { .milliseconds(max(1, Int((timeout * 1000).rounded()))) }

    var secretServiceConfiguration: SecretServiceStore.Configuration {
        .init(collection: SecretServiceStore.Collection(argument: collection)!, timeout: callLimit, logger: logger)
    }

    func makeStore() -> any KeychainStore {
        switch store {
        case .automatic: SandboxStore.automatic(secretService: secretServiceConfiguration)
        case .memory: InMemoryStore()
        case .secretService: SecretServiceStore(configuration: secretServiceConfiguration)
        case .portal: SecretPortalStore(configuration: .init(timeout: max(.seconds(10), callLimit), logger: logger))
        case .broker: BrokerKeychainStore(configuration: .init(timeout: max(.seconds(15), callLimit), logger: logger))
        }
    }

    /// The options as arguments again, for the demo's child processes.
    var arguments: [String] {
        ["--store", store.rawValue, "--collection", collection, "--timeout", String(timeout)] + (verbose ? ["--verbose"] : [])
    }
}

/// Pieces of the usage lines of commands whose generated synopsis is too long to show (argument-parser
/// then prints just `<options>`): the identity options, and the store options, which `--help` lists.
enum Usage {
    static let identity = "(--config <file> | --api-key <key> --app-id <id>) [--app-name <name>] [--project-id <id>]"
    static let store = "[<store-options>]"
    static let backend = "[--emulator <host:port>] [--app-check-debug-token-stdin]"
}

/// Who the app is to Firebase: which stored users are its own. Every command about one app takes these.
struct IdentityOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The app's GoogleService-Info.plist or google-services.json, or an options JSON file (apiKey, appID, projectID, appName, tenantID).",
        valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The project's Web API key (overrides the config file).", valueName: "key"))
    var apiKey: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp("The Firebase app ID, for example 1:1234:linux:abcd.", valueName: "id"))
    var appID: String?

    @Option(help: ArgumentHelp("The app's name within its process (default [DEFAULT]).", valueName: "name"))
    var appName: String?

    @Option(name: .customLong("project-id"), help: ArgumentHelp("The Firebase project ID (default demo-keyring-auth).", valueName: "id"))
    var projectID: String?

    func validate() throws {
        _ = try appOptions()
    }

    /// The options from the file, with the flags on top.
    func appOptions() throws -> AuthAppOptions {
        var loaded: AuthAppOptions?
        if let config {
            do {
                loaded = try AuthAppOptions.load(from: URL(fileURLWithPath: config))
            } catch {
                throw ValidationError("\(error)")
            }
        }
        guard let apiKey = apiKey ?? loaded?.apiKey, !apiKey.isEmpty else {
            throw ValidationError("Say who the app is: --config FILE, or --api-key and --app-id.")
        }
        guard let appID = appID ?? loaded?.appID, !appID.isEmpty else {
            throw ValidationError("Give the app's ID with --app-id (or in the --config file).")
        }
        let appName = appName ?? loaded?.appName ?? AuthAppOptions.defaultAppName
        let projectID = projectID ?? loaded?.projectID ?? "demo-keyring-auth"
        guard !appName.isEmpty, !projectID.isEmpty else { throw ValidationError("--app-name and --project-id must not be empty.") }
        return AuthAppOptions(appName: appName, apiKey: apiKey, appID: appID, projectID: projectID, tenantID: loaded?.tenantID)
    }

    /// An `Auth` for this app over `store`, loaded as the app would load at launch. A corrupt stored
    /// user does not stop it: signing in again (or switching groups) replaces it, as its message advises.
    ///
    /// `backend` is for commands that reach the identity backend (``BackendOptions``); the others get
    /// Firebase's (or `FIREBASE_AUTH_EMULATOR_HOST`'s), which they never call.
    ///
    /// `groupChoices` replaces the app's saved group choice (``AccessGroupChoices/pinned(to:forAppID:)``).
    func makeAuth(
        store: any KeychainStore, logger: Logger, backend: BackendOptions? = nil, groupChoices: AccessGroupChoices? = nil
    ) throws -> Auth {
        let options = try appOptions()
        let identityToolkit = try backend?.backend(for: options, logger: logger)
            ?? IdentityToolkitBackend(apiKey: options.apiKey, requestTimeout: .seconds(15), logger: logger)
        var configuration = AuthConfiguration(
            options: options, store: store, backend: identityToolkit, logger: logger, liveSync: false, groupChoices: groupChoices,
            tokenRefresh: .disabled)
        // Its requests carry the App Check token of the debug secret given, if one is.
        configuration.appCheck = try backend?.appCheck(for: options, store: store, logger: logger)
        let auth = Auth(configuration: configuration)
        if let error = auth.startupError, error.code != .corruptStoredUser { throw CLIFailure(error) }
        return auth
    }
}

/// Where sign-ins are checked, and the App Check debug secret their requests prove the app with: only on the commands
/// that reach the identity backend (`sign-in`, `token`, …).
struct BackendOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "An Auth emulator to sign in with, [::1]:port for IPv6 (default: $FIREBASE_AUTH_EMULATOR_HOST, else Firebase).",
        valueName: "host:port"))
    var emulator: String?

    @Flag(help: ArgumentHelp(
        "Read an App Check debug secret from the first line of standard input, before any other secret (default: "
            + "$APP_CHECK_DEBUG_TOKEN, $AppCheckDebugToken or $FIRAAppCheckDebugToken; without one, no App Check token is sent)."))
    var appCheckDebugTokenStdin = false

    func validate() throws {
        // A malformed --emulator is a usage error, and so is a malformed variable where it is used.
        _ = try endpoint()
    }

    func endpoint() throws -> IdentityToolkitEndpoint {
        do throws(AuthError) {
            if let emulator { return try .emulator(hostAndPort: emulator) }
            return try .fromEnvironment()
        } catch {
            throw ValidationError(error.message)
        }
    }

    func backend(for options: AuthAppOptions, logger: Logger) throws -> IdentityToolkitBackend {
        IdentityToolkitBackend(apiKey: options.apiKey, endpoint: try endpoint(), requestTimeout: .seconds(15), logger: logger)
    }

    /// The App Check of the app whose requests carry its token, when a debug secret is given (``AppCheckDebugSecret``):
    /// its exchanges at the emulator of ``endpoint()`` or at Firebase's App Check, its token kept in `store`.
    func appCheck(for options: AuthAppOptions, store: any KeychainStore, logger: Logger) throws -> AppCheck? {
        let appCheck = try AppCheckDebugSecret.given(piped: appCheckDebugTokenStdin).map { secret in
            AppCheck.debug(options: options, debugToken: secret, store: store, endpoint: try endpoint(), logger: logger)
        }
        AppCheckDebugSecret.used(appCheck, appID: options.appID)
        return appCheck
    }

    /// The options of `command` when it reaches the identity backend, found among its option groups.
    static func of(_ command: any ParsableCommand) -> BackendOptions? {
        func find(_ value: Any, depth: Int) -> BackendOptions? {
            if let options = value as? BackendOptions { return options }
            guard depth < 8 else { return nil }
            return Mirror(reflecting: value).children.lazy.compactMap { find($0.value, depth: depth + 1) }.first
        }
        return find(command, depth: 0)
    }
}

/// A scope as messages name it: "group G", or "its private scope" when `group` is `nil`.
func scopeName(_ group: (some CustomStringConvertible)?) -> String {
    group.map { "group \($0)" } ?? "its private scope"
}

/// `--group G` or `--private`: which stored user a command is about.
struct ScopeOptions: ParsableArguments {
    @Option(help: "The access group, for example TEAMID.com.example.group1.")
    var group: String?

    @Flag(name: .customLong("private"), help: "The app's private scope instead of a group.")
    var privateScope = false

    func validate() throws {
        guard !(group != nil && privateScope) else { throw ValidationError("Give --group or --private, not both.") }
        _ = try accessGroup()
    }

    /// The group, `nil` for the private item.
    func accessGroup() throws -> AccessGroup? {
        try group.map(validatedAccessGroup)
    }

    var isExplicit: Bool { group != nil || privateScope }
}

/// A group given on the command line, or a usage error saying which rule it breaks.
func validatedAccessGroup(_ group: String) throws -> AccessGroup {
    do throws(KeychainError) {
        return try AccessGroup(group)
    } catch {
        throw ValidationError(error.description)
    }
}

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts.")
    var json = false
}
