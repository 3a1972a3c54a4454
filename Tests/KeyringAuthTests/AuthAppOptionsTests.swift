import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth

/// The app options file: the documented format, and errors naming the file and the field.
@Suite struct AuthAppOptionsTests {
    func write(_ json: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @Test func loadsTheDocumentedFormat() throws {
        let file = try write(#"{"apiKey": "AIza", "appID": "1:2:linux:3", "projectID": "p", "tenantID": "t1", "extra": 1}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try AuthAppOptions.load(from: file)
            == AuthAppOptions(appName: "[DEFAULT]", apiKey: "AIza", appID: "1:2:linux:3", projectID: "p", tenantID: "t1"))
    }

    @Test(arguments: [
        (#"{"appID": "1", "projectID": "p"}"#, "apiKey is missing"),
        (#"{"apiKey": 5, "appID": "1", "projectID": "p"}"#, "apiKey"),
        (#"{"apiKey": "", "appID": "1", "projectID": "p"}"#, "apiKey must be a non-empty string"),
        ("{", "malformed"),
    ])
    func malformedFilesSayWhatIsWrong(_ json: String, _ expected: String) throws {
        let file = try write(json)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            try AuthAppOptions.load(from: file)
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains(file.path)
        }
    }

    @Test func aFirebaseAppsOwnFilesAreOptionsFilesToo() throws {
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["API_KEY": "AIzaPlist", "GOOGLE_APP_ID": "1:2:ios:3", "PROJECT_ID": "p"], format: .xml, options: 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("GoogleService-Info-\(UUID().uuidString).plist")
        try plist.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try AuthAppOptions.load(from: file) == AuthAppOptions(apiKey: "AIzaPlist", appID: "1:2:ios:3", projectID: "p"))

        let json = try write(#"{"project_info": {"project_number": "2", "project_id": "p"}, "client": "#
            + #"[{"client_info": {"mobilesdk_app_id": "1:2:android:4"}, "api_key": [{"current_key": "AIzaJSON"}]}]}"#)
        defer { try? FileManager.default.removeItem(at: json) }
        #expect(try AuthAppOptions.load(from: json) == AuthAppOptions(apiKey: "AIzaJSON", appID: "1:2:android:4", projectID: "p"))

        let keyless = try write(#"{"project_info": {"project_id": "p"}, "client": [{"client_info": {"mobilesdk_app_id": "1:2:android:4"}}]}"#)
        defer { try? FileManager.default.removeItem(at: keyless) }
        #expect { try AuthAppOptions.load(from: keyless) } throws: { "\($0)".contains("API_KEY") && "\($0)".contains(keyless.path) }
    }

    @Test func aMissingFileSaysWhichFile() {
        #expect { try AuthAppOptions.load(from: URL(fileURLWithPath: "/nonexistent/options.json")) } throws: {
            "\($0)".contains("/nonexistent/options.json")
        }
    }
}
