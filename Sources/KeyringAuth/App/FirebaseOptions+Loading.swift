import Foundation

// Reading a `GoogleService-Info.plist` or a `google-services.json`, and finding the one `FirebaseApp.configure()` reads.
extension FirebaseOptions {
    /// Why options could not be loaded: where none was found (every place looked at), or which file is not
    /// usable and why (the key that is missing or of the wrong type).
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The variable that names the options file, whatever its name (as Google's portable FirebaseCore).
    public static let pathVariable = "GOOGLE_SERVICE_INFO_PATH"
    /// The variable that chooses among the apps of a `google-services.json` (its `mobilesdk_app_id`).
    public static let appIDVariable = "GOOGLE_APP_ID"
    static let plistName = "GoogleService-Info.plist"
    static let jsonName = "google-services.json"
    /// Larger files are refused unread: a console's file is a few kilobytes.
    static let maximumFileBytes = 1 << 20

    /// The options of the file ``FirebaseApp/configure()`` reads: the file `$GOOGLE_SERVICE_INFO_PATH`
    /// names when it is set; otherwise the first of `GoogleService-Info.plist` and `google-services.json`
    /// found in the main bundle (on Linux, the executable's directory), then in the working directory (there only
    /// a file the user owns and others cannot write: anyone may write to a directory such as `/tmp`).
    /// The first file found is the one read: when it is not usable, that is the error (no other is tried).
    /// Among the apps of a `google-services.json`, `$GOOGLE_APP_ID` chooses when there are several.
    ///
    /// - Throws: ``LoadError`` naming every place looked at when there is no file, or the file and what is
    ///   wrong with it.
    public static func loadDefault() throws(LoadError) -> FirebaseOptions {
        let environment = ProcessInfo.processInfo.environment
        return try loadDefault(
            environment: environment, bundleDirectory: Bundle.main.resourcePath ?? Bundle.main.bundlePath,
            currentDirectory: FileManager.default.currentDirectoryPath)
    }

    static func loadDefault(environment: [String: String], bundleDirectory: String, currentDirectory: String) throws(LoadError)
        -> FirebaseOptions
    {
        let appID = environment[appIDVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let path = environment[pathVariable], !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else {
                throw LoadError(description: "\(pathVariable) names \(String(reflecting: path)), which does not exist; "
                    + "set it to the path of the app's \(plistName) (or \(jsonName)), or unset it.")
            }
            return try load(contentsOfFile: path, appID: appID)
        }
        let places = [bundleDirectory, currentDirectory].flatMap { directory in
            [plistName, jsonName].map { URL(fileURLWithPath: directory).appendingPathComponent($0).path }
        }
        guard let index = places.firstIndex(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw LoadError(description: "No Firebase options file was found. Looked at: "
                + places.map { String(reflecting: $0) }.joined(separator: ", ") + " (\(pathVariable) is not set). "
                + "Download the app's \(plistName) from the Firebase console (Project settings, Your apps) and put it "
                + "beside the executable or in the working directory, set \(pathVariable) to its path, or call "
                + "FirebaseApp.configure(options:).")
        }
        // The working directory may be one others write to (`/tmp`): a file there must be the user's own.
        let found = places[index]
        return try load(OptionsFile.read(found, ownedByTheUser: index >= 2), from: found, appID: appID)
    }

    /// The options of a `GoogleService-Info.plist` (XML or binary) or a `google-services.json` (told apart by
    /// their content) at `path`. Of a `google-services.json` with several apps, the one whose
    /// `mobilesdk_app_id` is `appID`.
    ///
    /// - Throws: ``LoadError`` naming the file and what is wrong: unreadable, not a regular file (a FIFO is
    ///   refused without waiting on it), too large (over 1 MiB), a binary property list that expands past
    ///   10,000 objects or 16 levels through shared references, neither format, a required key missing (`GOOGLE_APP_ID`; in JSON `client[].client_info.mobilesdk_app_id`),
    ///   a value of the wrong type, or no app or several without `appID`.
    public static func load(contentsOfFile path: String, appID: String? = nil) throws(LoadError) -> FirebaseOptions {
        try load(OptionsFile.read(path), from: path, appID: appID)
    }

    /// ``load(contentsOfFile:appID:)`` of the bytes read from `path`.
    static func load(_ data: Data, from path: String, appID: String?) throws(LoadError) -> FirebaseOptions {
        do throws(FileProblem) {
            return FirebaseOptions(values: startsAsJSONObject(data) ? try googleServicesJSON(data, appID: appID) : try serviceInfoPlist(data))
        } catch {
            throw LoadError(description: "The Firebase options file \(String(reflecting: path)) is not usable: \(error.reason).")
        }
    }

    /// Whether `data`'s first character other than white space is `{`: JSON, not a property list.
    static func startsAsJSONObject(_ data: Data) -> Bool {
        data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    }

    /// What is wrong inside a file, said without its path.
    struct FileProblem: Error {
        let reason: String
    }

    /// A `GoogleService-Info.plist`: a dictionary with `GOOGLE_APP_ID` and Firebase's other keys.
    static func serviceInfoPlist(_ data: Data) throws(FileProblem) -> Values {
        do throws(BinaryPropertyListBounds.Refusal) {
            try BinaryPropertyListBounds.check(data)
        } catch {
            throw FileProblem(reason: "it is a binary property list, but \(error.reason)")
        }
        guard let object = try? PropertyListSerialization.propertyList(from: data, format: nil) else {
            throw FileProblem(reason: "it is neither a property list (\(plistName)) nor JSON (\(jsonName))")
        }
        guard let plist = object as? [String: Any] else {
            throw FileProblem(reason: "it is a property list, but not a dictionary as \(plistName) is")
        }
        let fields = Fields(plist, in: plistName)
        return Values(
            apiKey: try fields.string("API_KEY"), bundleID: try fields.string("BUNDLE_ID") ?? Bundle.main.bundleIdentifier ?? "",
            clientID: try fields.string("CLIENT_ID"), gcmSenderID: try fields.string("GCM_SENDER_ID") ?? "",
            projectID: try fields.string("PROJECT_ID"), googleAppID: try fields.required("GOOGLE_APP_ID"),
            databaseURL: try fields.string("DATABASE_URL"), storageBucket: try fields.string("STORAGE_BUCKET"))
    }

    /// A `google-services.json`: `project_info` and one of the apps in `client`, chosen by `appID` when there are several.
    static func googleServicesJSON(_ data: Data, appID: String?) throws(FileProblem) -> Values {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw FileProblem(reason: "it is not a JSON object as \(jsonName) is")
        }
        let project = Fields(try Fields(root, in: jsonName).object("project_info"), in: "project_info")
        guard let clients = root["client"] as? [Any] else { throw FileProblem(reason: "client (an array of apps) is missing") }
        let apps = try clients.enumerated().map { (index, client) throws(FileProblem) -> (id: String, fields: Fields) in
            guard let client = client as? [String: Any] else { throw FileProblem(reason: "client[\(index)] is not an object") }
            let fields = Fields(client, in: "client[\(index)]")
            let info = Fields(try fields.object("client_info"), in: "client[\(index)].client_info")
            return (try info.required("mobilesdk_app_id"), fields)
        }
        let ids = apps.map { String(reflecting: $0.id) }.joined(separator: ", ")
        let chosen: (id: String, fields: Fields)
        if let appID {
            guard let app = apps.first(where: { $0.id == appID }) else {
                throw FileProblem(reason: "it has no app with mobilesdk_app_id \(String(reflecting: appID)) (\(appIDVariable)); its apps: \(ids)")
            }
            chosen = app
        } else if apps.count == 1 {
            chosen = apps[0]
        } else {
            throw FileProblem(reason: apps.isEmpty ? "client lists no app"
                : "it has \(apps.count) apps (\(ids)); set \(appIDVariable) to the mobilesdk_app_id of this one, or pass appID")
        }
        let keys = (chosen.fields.dictionary["api_key"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let apiKey = try keys.first.map { key throws(FileProblem) in try Fields(key, in: "api_key[0]").string("current_key") } ?? nil
        return Values(
            apiKey: apiKey, bundleID: Bundle.main.bundleIdentifier ?? "", gcmSenderID: try project.string("project_number") ?? "",
            projectID: try project.required("project_id"), googleAppID: chosen.id,
            databaseURL: try project.string("firebase_url"), storageBucket: try project.string("storage_bucket"))
    }

    /// A dictionary's values, checked: strings of at most 4,096 bytes, without NUL characters.
    struct Fields {
        let dictionary: [String: Any]
        let place: String

        init(_ dictionary: [String: Any], in place: String) {
            self.dictionary = dictionary
            self.place = place
        }

        func string(_ key: String) throws(FileProblem) -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let string = value as? String else { throw FileProblem(reason: "\(key) in \(place) is not a string") }
            guard string.utf8.count <= 4096, !string.utf8.contains(0) else {
                throw FileProblem(reason: "\(key) in \(place) is over 4,096 bytes or has a NUL character")
            }
            return string
        }

        func required(_ key: String) throws(FileProblem) -> String {
            guard let value = try string(key), !value.isEmpty else {
                throw FileProblem(reason: "\(key) is missing from \(place)" + (dictionary[key] == nil ? "" : " (it is empty)"))
            }
            return value
        }

        func object(_ key: String) throws(FileProblem) -> [String: Any] {
            guard let value = dictionary[key] else { throw FileProblem(reason: "\(key) is missing from \(place)") }
            guard let object = value as? [String: Any] else { throw FileProblem(reason: "\(key) in \(place) is not an object") }
            return object
        }
    }
}
