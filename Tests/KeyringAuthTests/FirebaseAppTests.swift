import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth

/// `FirebaseApp` and `FirebaseOptions` by Firebase's rules: the console's files read (plist, binary plist,
/// google-services.json), the places `configure()` looks, and errors that name the place and the key.
@Suite struct FirebaseAppTests {
    /// A directory of its own, removed at the end of the test.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("firebase-app-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        @discardableResult
        func write(_ name: String, _ data: Data) throws -> String {
            let file = url.appendingPathComponent(name)
            try data.write(to: file)
            return file.path
        }
    }

    static var serviceInfo: [String: Any] { [
        "API_KEY": "AIzaSyPlist", "GOOGLE_APP_ID": "1:1234567890:ios:abcdef", "GCM_SENDER_ID": "1234567890",
        "PROJECT_ID": "my-project", "BUNDLE_ID": "com.example.app", "CLIENT_ID": "123-abc.apps.googleusercontent.com",
        "STORAGE_BUCKET": "my-project.appspot.com", "DATABASE_URL": "https://my-project.firebaseio.com",
        "IS_ANALYTICS_ENABLED": false, "PLIST_VERSION": "1",
    ] }

    static func plist(_ values: [String: Any], format: PropertyListSerialization.PropertyListFormat = .xml) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: values, format: format, options: 0)
    }

    static func googleServices(_ apps: [String]) -> Data {
        let clients = apps.map { id in
            #"{"client_info": {"mobilesdk_app_id": "\#(id)", "android_client_info": {"package_name": "com.example"}}, "#
                + #""oauth_client": [], "api_key": [{"current_key": "AIzaKey-\#(id)"}], "services": {}}"#
        }
        return Data(("""
            {"project_info": {"project_number": "555", "project_id": "json-project", "storage_bucket": "json-project.appspot.com",
              "firebase_url": "https://json-project.firebaseio.com"},
             "client": [\(clients.joined(separator: ","))], "configuration_version": "1"}
            """).utf8)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func theConsolesPlistGivesEveryOption(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let directory = try Directory()
        let path = try directory.write("GoogleService-Info.plist", Self.plist(Self.serviceInfo, format: format))
        let options = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(options.apiKey == "AIzaSyPlist" && options.googleAppID == "1:1234567890:ios:abcdef")
        #expect(options.gcmSenderID == "1234567890" && options.projectID == "my-project" && options.bundleID == "com.example.app")
        #expect(options.clientID == "123-abc.apps.googleusercontent.com" && options.storageBucket == "my-project.appspot.com")
        #expect(options.databaseURL == "https://my-project.firebaseio.com" && options.appGroupID == nil)
        #expect(!"\(options)".contains("AIzaSyPlist"), "the description leaves the API key out")
    }

    @Test(arguments: [
        ("GOOGLE_APP_ID", "GOOGLE_APP_ID is missing from GoogleService-Info.plist"),
        ("API_KEY", ""),
    ])
    func onlyTheAppIDIsRequiredAsFirebases(_ left: String, _ message: String) throws {
        let directory = try Directory()
        var values = Self.serviceInfo
        values[left] = nil
        let path = try directory.write("GoogleService-Info.plist", Self.plist(values))
        if message.isEmpty {
            #expect(FirebaseOptions(contentsOfFile: path)?.apiKey == nil, "no API key is no error for FirebaseOptions")
        } else {
            #expect(FirebaseOptions(contentsOfFile: path) == nil)
            #expect { try FirebaseOptions.load(contentsOfFile: path) } throws: { "\($0)".contains(message) && "\($0)".contains(path) }
        }
    }

    @Test(arguments: [
        (Data("not a plist".utf8), "neither a property list"),
        (try! FirebaseAppTests.plist(["GOOGLE_APP_ID": 42]), "GOOGLE_APP_ID in GoogleService-Info.plist is not a string"),
        (try! FirebaseAppTests.plist(["GOOGLE_APP_ID": "1:2:ios:3", "API_KEY": "a\u{0}b"]), "NUL"),
        (try! PropertyListSerialization.data(fromPropertyList: ["a"], format: .xml, options: 0), "not a dictionary"),
        (Data(#"{"client": []}"#.utf8), "project_info is missing"),
        (Data(repeating: 0x20, count: (1 << 20) + 1), "over 1 MiB"),
    ])
    func aBrokenFileIsNilOrAnErrorThatSaysWhy(_ data: Data, _ reason: String) throws {
        let directory = try Directory()
        let path = try directory.write("GoogleService-Info.plist", data)
        #expect(FirebaseOptions(contentsOfFile: path) == nil)
        #expect { try FirebaseOptions.load(contentsOfFile: path) } throws: { "\($0)".contains(reason) && "\($0)".contains(path) }
        #expect(FirebaseOptions(contentsOfFile: directory.url.appendingPathComponent("absent.plist").path) == nil)
    }

    @Test func aGoogleServicesJSONGivesItsAppChosenByAppIDWhenThereAreSeveral() throws {
        let directory = try Directory()
        let one = try directory.write("one.json", Self.googleServices(["1:555:android:aaa"]))
        let options = try FirebaseOptions.load(contentsOfFile: one)
        #expect(options.googleAppID == "1:555:android:aaa" && options.apiKey == "AIzaKey-1:555:android:aaa")
        #expect(options.projectID == "json-project" && options.gcmSenderID == "555")
        #expect(options.storageBucket == "json-project.appspot.com" && options.databaseURL == "https://json-project.firebaseio.com")

        let two = try directory.write("two.json", Self.googleServices(["1:555:android:aaa", "1:555:android:bbb"]))
        #expect(try FirebaseOptions.load(contentsOfFile: two, appID: "1:555:android:bbb").apiKey == "AIzaKey-1:555:android:bbb")
        #expect { try FirebaseOptions.load(contentsOfFile: two) } throws: {
            "\($0)".contains("2 apps") && "\($0)".contains("1:555:android:bbb") && "\($0)".contains("GOOGLE_APP_ID")
        }
        #expect { try FirebaseOptions.load(contentsOfFile: two, appID: "1:555:android:zzz") } throws: {
            "\($0)".contains("no app with mobilesdk_app_id \"1:555:android:zzz\"")
        }
    }

    @Test func configureLooksAtTheVariableThenTheBundleThenTheWorkingDirectory() throws {
        let bundle = try Directory(), work = try Directory(), elsewhere = try Directory()
        let load = { (environment: [String: String]) throws(FirebaseOptions.LoadError) -> FirebaseOptions in
            try FirebaseOptions.loadDefault(environment: environment, bundleDirectory: bundle.url.path, currentDirectory: work.url.path)
        }
        // Nothing anywhere: every place looked at is named.
        #expect { try load([:]) } throws: { error in
            ["GoogleService-Info.plist", "google-services.json"].allSatisfy { name in
                [bundle, work].allSatisfy { "\(error)".contains($0.url.appendingPathComponent(name).path) }
            } && "\(error)".contains("GOOGLE_SERVICE_INFO_PATH")
        }
        var values = Self.serviceInfo
        values["GOOGLE_APP_ID"] = "1:1:ios:work-json"
        try work.write("google-services.json", Self.googleServices(["1:1:ios:work-json"]))
        #expect(try load([:]).googleAppID == "1:1:ios:work-json")
        values["GOOGLE_APP_ID"] = "1:1:ios:work-plist"
        try work.write("GoogleService-Info.plist", Self.plist(values))
        #expect(try load([:]).googleAppID == "1:1:ios:work-plist", "the plist before the JSON")
        values["GOOGLE_APP_ID"] = "1:1:ios:bundle"
        try bundle.write("GoogleService-Info.plist", Self.plist(values))
        #expect(try load([:]).googleAppID == "1:1:ios:bundle", "the bundle before the working directory")
        values["GOOGLE_APP_ID"] = "1:1:ios:variable"
        let named = try elsewhere.write("any-name.plist", Self.plist(values))
        #expect(try load(["GOOGLE_SERVICE_INFO_PATH": named]).googleAppID == "1:1:ios:variable", "the variable first")
        #expect { try load(["GOOGLE_SERVICE_INFO_PATH": named + ".absent"]) } throws: { "\($0)".contains("does not exist") }

        // The first file found is the one read: a broken one is the error, not a reason to read another.
        try bundle.write("GoogleService-Info.plist", Data("broken".utf8))
        #expect { try load([:]) } throws: { "\($0)".contains(bundle.url.path) && "\($0)".contains("not usable") }
    }

    @Test func appsFollowFirebasesRulesAndKeepACopyOfTheirOptions() async throws {
        let name = "rules-\(UInt32.random(in: 0...UInt32.max))"
        let options = FirebaseOptions(googleAppID: "1:1:linux:rules", gcmSenderID: "1")
        options.apiKey = "AIzaRules"
        FirebaseApp.configure(name: name, options: options)
        let app = try #require(FirebaseApp.app(name: name))
        #expect(app.name == name && FirebaseApp.allApps?[name] === app)
        options.apiKey = "changed later"
        #expect(app.options.apiKey == "AIzaRules", "the app kept a copy")
        app.options.apiKey = "changed on a copy"
        #expect(app.options.apiKey == "AIzaRules", "the property returns a copy")
        #expect(app.options == app.options && app.options !== app.options, "equal copies")

        #expect(FirebaseApp.problem(configuring: "", with: options) == "Name cannot be empty.")
        #expect(FirebaseApp.problem(configuring: "no spaces", with: options)?.contains("alphanumeric") == true)
        #expect(FirebaseApp.problem(configuring: "Ünïcode_ok-1", with: options) == nil)
        #expect(FirebaseApp.problem(configuring: "x", with: FirebaseOptions(googleAppID: "", gcmSenderID: ""))?.contains("GOOGLE_APP_ID") == true)

        // Its Auth: the one configured for it, found by the app.
        let auth = Auth.configure(AuthConfiguration(app: app, store: InMemoryStore()))
        #expect(Auth.auth(app: app) === auth && auth.app === app)
        #expect(auth.configuration.options.appID == "1:1:linux:rules" && auth.configuration.options.apiKey == "AIzaRules")

        #expect(await app.delete())
        #expect(FirebaseApp.app(name: name) == nil && auth.app == nil)
        #expect(await app.delete() == false, "deleted once")
    }

    @Test func theDefaultAppsAuthKeepsTheNameItsUsersAreStoredUnderAndAKeylessAppIsRefused() throws {
        #expect(AuthAppOptions.firebaseAppName(of: AuthAppOptions.defaultAppName) == "__FIRAPP_DEFAULT")
        #expect(AuthAppOptions.firebaseAppName(of: "other") == "other")
        let name = "no-key-\(UInt32.random(in: 0...UInt32.max))"
        FirebaseApp.configure(name: name, options: FirebaseOptions(googleAppID: "1:1:linux:keyless", gcmSenderID: "1"))
        let app = try #require(FirebaseApp.app(name: name))
        defer { app.delete { _ in } }
        #expect(AuthAppOptions.appName(of: app) == name)
        #expect { try AuthAppOptions(app: app) } throws: { "\($0)".contains("API_KEY") && "\($0)".contains(name) }
    }
}
