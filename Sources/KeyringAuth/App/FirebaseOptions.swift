import Foundation
import Synchronization

/// Who an app is to Firebase, as Firebase's `FirebaseOptions`: the values of the
/// `GoogleService-Info.plist` downloaded from the Firebase console (or of an Android app's
/// `google-services.json`), read by ``FirebaseApp/configure()`` or given in code.
///
/// As Firebase's, it is a class whose properties can be changed until it is passed to
/// ``FirebaseApp/configure(options:)``; the app keeps a copy, so later changes do not reach it.
/// Only ``googleAppID`` is required to configure an app; ``Auth`` also needs ``apiKey``.
public final class FirebaseOptions: Hashable, Sendable, CustomStringConvertible {
    struct Values: Hashable, Sendable {
        var apiKey: String?
        var bundleID: String
        var clientID: String?
        var gcmSenderID: String
        var projectID: String?
        var googleAppID: String
        var databaseURL: String?
        var storageBucket: String?
        var appGroupID: String?
    }

    private let values: Mutex<Values>

    init(values: Values) { self.values = Mutex(values) }

    /// Options with an app ID and a sender ID (the project number); set the others before configuring.
    public convenience init(googleAppID: String, gcmSenderID: String) {
        self.init(values: Values(
            bundleID: Bundle.main.bundleIdentifier ?? "", gcmSenderID: gcmSenderID, googleAppID: googleAppID))
    }

    /// The options of a `GoogleService-Info.plist` (XML or binary) or a `google-services.json` at `plistPath`,
    /// or `nil` when it cannot be read, is neither, or has no `GOOGLE_APP_ID` (as Firebase's).
    /// ``load(contentsOfFile:appID:)`` says why.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let options = try? Self.load(contentsOfFile: plistPath) else { return nil }
        self.init(values: options.snapshot)
    }

    /// The options of the file ``FirebaseApp/configure()`` would read, or `nil` when there is none or it is
    /// not usable. ``loadDefault()`` says which places were looked at and what is wrong.
    public static func defaultOptions() -> FirebaseOptions? { try? loadDefault() }

    var snapshot: Values { values.withLock { $0 } }

    /// The project's Web API key (`API_KEY`); ``Auth`` needs it.
    public var apiKey: String? {
        get { values.withLock { $0.apiKey } }
        set { values.withLock { $0.apiKey = newValue } }
    }
    /// The bundle ID the options were made for (`BUNDLE_ID`).
    public var bundleID: String {
        get { values.withLock { $0.bundleID } }
        set { values.withLock { $0.bundleID = newValue } }
    }
    /// The OAuth client ID (`CLIENT_ID`).
    public var clientID: String? {
        get { values.withLock { $0.clientID } }
        set { values.withLock { $0.clientID = newValue } }
    }
    /// The sender ID, the project number (`GCM_SENDER_ID`).
    public var gcmSenderID: String {
        get { values.withLock { $0.gcmSenderID } }
        set { values.withLock { $0.gcmSenderID = newValue } }
    }
    /// The project ID (`PROJECT_ID`).
    public var projectID: String? {
        get { values.withLock { $0.projectID } }
        set { values.withLock { $0.projectID = newValue } }
    }
    /// The Firebase app ID, for example `1:1234567890:ios:abcdef` (`GOOGLE_APP_ID`).
    public var googleAppID: String {
        get { values.withLock { $0.googleAppID } }
        set { values.withLock { $0.googleAppID = newValue } }
    }
    /// The Realtime Database URL (`DATABASE_URL`).
    public var databaseURL: String? {
        get { values.withLock { $0.databaseURL } }
        set { values.withLock { $0.databaseURL = newValue } }
    }
    /// The Cloud Storage bucket (`STORAGE_BUCKET`).
    public var storageBucket: String? {
        get { values.withLock { $0.storageBucket } }
        set { values.withLock { $0.storageBucket = newValue } }
    }
    /// The App Group the app shares data in on Apple platforms; no file sets it. Sharing a sign-in on
    /// Linux is ``Auth/useUserAccessGroup(_:migratingCurrentUser:)``'s.
    public var appGroupID: String? {
        get { values.withLock { $0.appGroupID } }
        set { values.withLock { $0.appGroupID = newValue } }
    }

    public static func == (lhs: FirebaseOptions, rhs: FirebaseOptions) -> Bool { lhs.snapshot == rhs.snapshot }
    public func hash(into hasher: inout Hasher) { hasher.combine(snapshot) }

    /// The app and project IDs; never the API key.
    public var description: String {
        let values = snapshot
        return "FirebaseOptions(googleAppID: \(String(reflecting: values.googleAppID)), projectID: "
            + "\(values.projectID.map { String(reflecting: $0) } ?? "nil"))"
    }
}
