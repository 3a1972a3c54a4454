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

    @Test func aMissingFileSaysWhichFile() {
        #expect { try AuthAppOptions.load(from: URL(fileURLWithPath: "/nonexistent/options.json")) } throws: {
            "\($0)".contains("/nonexistent/options.json")
        }
    }
}
