import Foundation
import Synchronization

/// A Firebase app, as Firebase's `FirebaseApp`: a name and the ``FirebaseOptions`` it was configured
/// with. `FirebaseApp.configure()` reads the app's `GoogleService-Info.plist`; then `Auth.auth()` is
/// the app's ``Auth``, with this package's defaults (the Secret Service, live sync); call
/// ``Auth/configure(_:)`` with ``AuthConfiguration/init(app:store:callbackQueue:logger:liveSync:groupChoices:tokenRefresh:)``
/// first to choose them.
///
/// ```swift
/// FirebaseApp.configure()   // GoogleService-Info.plist beside the executable or in the working directory
/// let user = try await Auth.auth().signInAnonymously().user
/// ```
///
/// As Firebase's, configuring is a step every launch must get right, and its mistakes stop the process:
/// no options file, an app configured twice, or a name other than letters, digits, `-` and `_`. To handle
/// a missing or broken file instead, load it with ``FirebaseOptions/loadDefault()`` (which throws, saying
/// where it looked and what is wrong) and pass the options to ``configure(options:)``.
public final class FirebaseApp: Sendable, CustomStringConvertible {
    /// The default app's name, as Firebase's.
    static let defaultAppName = "__FIRAPP_DEFAULT"

    /// The app's name; the default app's is `__FIRAPP_DEFAULT`.
    public let name: String
    private let configuredOptions: FirebaseOptions.Values
    private let dataCollection = Mutex(true)

    private static let apps = Mutex<[String: FirebaseApp]>([:])

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.configuredOptions = options.snapshot
    }

    /// A copy of the options the app was configured with: changing it changes nothing.
    public var options: FirebaseOptions { FirebaseOptions(values: configuredOptions) }

    /// Whether Firebase products may collect data by default; kept in memory (this package collects none).
    public var isDataCollectionDefaultEnabled: Bool {
        get { dataCollection.withLock { $0 } }
        set { dataCollection.withLock { $0 = newValue } }
    }

    public var description: String { "FirebaseApp(name: \(String(reflecting: name)), options: \(options))" }

    // MARK: Configuring

    /// Configures the default app with the options of the app's `GoogleService-Info.plist` (or
    /// `google-services.json`), found as ``FirebaseOptions/loadDefault()`` finds it.
    ///
    /// Stops the process, as Firebase's, when no usable file is found (the message names every place
    /// looked at, or the file and the key that is missing) or the default app is already configured.
    public static func configure() {
        let options: FirebaseOptions
        do throws(FirebaseOptions.LoadError) {
            options = try FirebaseOptions.loadDefault()
        } catch {
            fatalError("FirebaseApp.configure() could not find a valid GoogleService-Info.plist: \(error)")
        }
        configure(options: options)
    }

    /// Configures the default app with `options` (a copy is kept).
    ///
    /// Stops the process, as Firebase's, when the default app is already configured or `options` has no
    /// ``FirebaseOptions/googleAppID``.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app named `name` with `options` (a copy is kept); ``Auth/auth(app:)-(FirebaseApp)`` is its ``Auth``.
    ///
    /// Stops the process, as Firebase's, when an app of that name is already configured, `name` is empty
    /// or has other characters than letters, digits, `-` and `_`, or `options` has no ``FirebaseOptions/googleAppID``.
    public static func configure(name: String, options: FirebaseOptions) {
        if let problem = problem(configuring: name, with: options) { fatalError(problem) }
        let app = FirebaseApp(name: name, options: options)
        let configured = apps.withLock { apps in
            guard apps[name] == nil else { return false }
            apps[name] = app
            return true
        }
        guard configured else {
            fatalError(name == defaultAppName ? "Default app has already been configured." : "App named \(name) has already been configured.")
        }
    }

    /// Why `name` and `options` cannot configure an app, by Firebase's rules, or `nil`.
    static func problem(configuring name: String, with options: FirebaseOptions) -> String? {
        guard !name.isEmpty else { return "Name cannot be empty." }
        guard name == defaultAppName || name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" })
        else { return "App name can only contain alphanumeric, hyphen (-), and underscore (_) characters" }
        let appID = options.googleAppID
        guard !appID.isEmpty, !appID.utf8.contains(0) else {
            return "Configuration fails. It may be caused by an invalid GOOGLE_APP_ID in GoogleService-Info.plist or set in the customized options."
        }
        return nil
    }

    // MARK: Finding

    /// The default app, or `nil` before ``configure()``.
    public static func app() -> FirebaseApp? { app(name: defaultAppName) }

    /// The app named `name`, or `nil`.
    public static func app(name: String) -> FirebaseApp? { apps.withLock { $0[name] } }

    /// Every configured app by name, or `nil` when none is (as Firebase's).
    public static var allApps: [String: FirebaseApp]? {
        apps.withLock { $0.isEmpty ? nil : $0 }
    }

    // MARK: Deleting

    /// Removes the app and its ``Auth`` instance, then calls `completion` with `true`, or with `false`
    /// when the app was not configured (deleted already). Nothing stored is touched: the signed-in user
    /// stays in the keychain. The name can be configured again.
    public func delete(_ completion: @escaping @Sendable (Bool) -> Void) {
        let removed = Self.apps.withLock { apps in
            guard apps[name] === self else { return false }
            apps[name] = nil
            return true
        }
        if removed {
            Auth.removeInstance(for: self)
            AppCheck.removeInstance(for: self)
        }
        completion(removed)
    }

    /// ``delete(_:)``, awaited: `true` when the app was removed.
    @discardableResult
    public func delete() async -> Bool {
        await withCheckedContinuation { continuation in delete { continuation.resume(returning: $0) } }
    }
}
