import Foundation

/// Who an app is to Firebase: the values of its `GoogleService-Info` / `google-services.json`,
/// plus the app's name within the process.
///
/// Make them in code, or load them from a JSON file with ``load(from:)``:
///
/// ```swift
/// let options = AuthAppOptions(apiKey: "AIza…", appID: "1:1234567890:linux:abcdef", projectID: "my-project")
/// ```
///
/// ```json
/// { "appName": "[DEFAULT]", "apiKey": "AIza…", "appID": "1:1234:linux:abcd",
///   "projectID": "my-project", "tenantID": null }
/// ```
public struct AuthAppOptions: Hashable, Sendable, Codable {
    /// The name of Firebase's default app.
    public static let defaultAppName = "[DEFAULT]"

    /// The instance's name within the process; one ``Auth`` exists per name (``Auth/auth(app:)-(String)``).
    /// Apps — processes — are told apart by ``appID``, not by this name: most apps keep the default.
    public var appName: String
    /// The project's Web API key.
    public var apiKey: String
    /// The Firebase app ID, for example `1:1234567890:linux:abcdef`.
    public var appID: String
    /// The Firebase project ID.
    public var projectID: String
    /// The Identity Platform tenant users sign in to, if any.
    public var tenantID: String?

    /// Options for one app; only the API key, app ID and project ID have no default.
    public init(
        appName: String = defaultAppName, apiKey: String, appID: String, projectID: String, tenantID: String? = nil
    ) {
        self.appName = appName
        self.apiKey = apiKey
        self.appID = appID
        self.projectID = projectID
        self.tenantID = tenantID
    }

    /// The options of a ``FirebaseApp``: its API key, app ID and project ID, under its name (the default
    /// app's is ``defaultAppName``).
    ///
    /// - Throws: ``LoadError`` when the app's options have no API key, which ``Auth`` needs.
    public init(app: FirebaseApp) throws(LoadError) {
        try self.init(app.options, appName: Self.appName(of: app), from: "FirebaseApp \(String(reflecting: app.name))")
    }

    /// The options of a Firebase app's options, which must have an API key; `source` says whose they are.
    init(_ options: FirebaseOptions, appName: String, from source: String) throws(LoadError) {
        guard let apiKey = options.apiKey, !apiKey.isEmpty else {
            throw LoadError(description: "The options of \(source) have no API key, which Auth needs: add API_KEY to the "
                + "GoogleService-Info.plist (download it again from the Firebase console), or set apiKey in code.")
        }
        self.init(appName: appName, apiKey: apiKey, appID: options.googleAppID, projectID: options.projectID ?? "")
    }

    /// The ``appName`` of a ``FirebaseApp``: its name, but ``defaultAppName`` for the default app, whose
    /// users are stored under that name.
    static func appName(of app: FirebaseApp) -> String {
        app.name == FirebaseApp.defaultAppName ? defaultAppName : app.name
    }

    /// The name of the ``FirebaseApp`` an ``appName`` belongs to.
    static func firebaseAppName(of appName: String) -> String {
        appName == defaultAppName ? FirebaseApp.defaultAppName : appName
    }

    private enum CodingKeys: String, CodingKey {
        case appName, apiKey, appID, projectID, tenantID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appName = try container.decodeIfPresent(String.self, forKey: .appName) ?? Self.defaultAppName
        apiKey = try container.decode(String.self, forKey: .apiKey)
        appID = try container.decode(String.self, forKey: .appID)
        projectID = try container.decode(String.self, forKey: .projectID)
        tenantID = try container.decodeIfPresent(String.self, forKey: .tenantID)
        for (name, value) in [("appName", appName), ("apiKey", apiKey), ("appID", appID), ("projectID", projectID)]
        where value.isEmpty || value.utf8.contains(0) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "\(name) must be a non-empty string without NUL characters"))
        }
    }

    /// A problem with an options file.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads options from a file: this package's JSON (above), or a Firebase app's own
    /// `GoogleService-Info.plist` or `google-services.json`, read as ``FirebaseOptions/load(contentsOfFile:appID:)``
    /// reads them (`$GOOGLE_APP_ID` chooses among the apps of a `google-services.json`).
    ///
    /// - Throws: ``LoadError`` naming the file and what is wrong with it.
    public static func load(from file: URL) throws(LoadError) -> AuthAppOptions {
        let data: Data
        do throws(FirebaseOptions.LoadError) {
            data = try OptionsFile.read(file.path)
        } catch {
            throw LoadError(description: error.description)
        }
        // This package's JSON: an object without google-services.json's project_info, or text that starts as one.
        let isOwnJSON: Bool
        if let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            isOwnJSON = object["project_info"] == nil
        } else {
            isOwnJSON = FirebaseOptions.startsAsJSONObject(data)
        }
        if !isOwnJSON {
            do {
                let appID = ProcessInfo.processInfo.environment[FirebaseOptions.appIDVariable].flatMap { $0.isEmpty ? nil : $0 }
                let options = try FirebaseOptions.load(data, from: file.path, appID: appID)
                return try AuthAppOptions(options, appName: defaultAppName, from: file.path)
            } catch let error as LoadError {
                throw error
            } catch {
                throw LoadError(description: "\(error)")
            }
        }
        do {
            return try JSONDecoder().decode(AuthAppOptions.self, from: data)
        } catch let error as DecodingError {
            throw LoadError(description: "The app options file \(file.path) is malformed: \(error.readableDescription). "
                + "It needs a JSON object with apiKey, appID and projectID (strings), and optionally appName and tenantID.")
        } catch {
            throw LoadError(description: "The app options file \(file.path) is malformed: \(error)")
        }
    }
}

extension DecodingError {
    /// What went wrong and where, in one line.
    var readableDescription: String {
        func path(_ context: Context) -> String {
            context.codingPath.isEmpty ? "" : " at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        }
        switch self {
        case .keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription.trimmingCharacters(in: CharacterSet(charactersIn: ".")) + path(context)
        @unknown default: return "\(self)"
        }
    }
}
