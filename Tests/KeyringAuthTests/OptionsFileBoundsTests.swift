import Foundation
import Testing

@testable import KeyringAuth

/// An options file is read with limits: a regular file only, refused at once when it is a FIFO; a binary
/// property list bounded by what it expands to, not only by its size; and in the working directory, only a
/// file of the user's own that others cannot write.
@Suite struct OptionsFileBoundsTests {
    /// A binary property list of `levels` arrays, each holding the next one twice (the last one empty): it is
    /// a few hundred bytes and, decoded, 2^levels objects.
    static func expandingPlist(levels: Int) -> Data {
        var bytes = Array("bplist00".utf8), offsets: [Int] = []
        for level in 0..<levels {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(bytes.count)
        bytes.append(0xA0)
        let table = bytes.count
        bytes += offsets.map { UInt8($0) }
        func bigEndian(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(levels + 1) + bigEndian(0) + bigEndian(table)
        return Data(bytes)
    }

    @Test(arguments: [40, 14])
    func aBinaryPlistThatExpandsThroughSharedReferencesIsRefusedUndecoded(levels: Int) throws {
        let directory = try FirebaseAppTests.Directory()
        let bomb = Self.expandingPlist(levels: levels)
        #expect(bomb.count < 300)
        let path = try directory.write("GoogleService-Info.plist", bomb)
        let started = ContinuousClock.now
        #expect { try FirebaseOptions.load(contentsOfFile: path) } throws: { error in
            "\(error)".contains("binary property list") && ("\(error)".contains("nested over 16") || "\(error)".contains("over 10000 objects"))
        }
        #expect(FirebaseOptions(contentsOfFile: path) == nil)
        #expect { try AuthAppOptions.load(from: URL(fileURLWithPath: path)) } throws: { "\($0)".contains("binary property list") }
        #expect(ContinuousClock.now - started < .seconds(5), "refused before decoding, not after")
    }

    @Test func aBinaryPlistOfTheConsoleStillLoads() throws {
        let directory = try FirebaseAppTests.Directory()
        let path = try directory.write("GoogleService-Info.plist", try FirebaseAppTests.plist(FirebaseAppTests.serviceInfo, format: .binary))
        #expect(try FirebaseOptions.load(contentsOfFile: path).apiKey == "AIzaSyPlist")
        // Strings the writer shares between keys (here every value is the same) are fine: they expand to little.
        let shared = FirebaseAppTests.serviceInfo.mapValues { _ in "1:1:ios:same" as Any }
        let sharedPath = try directory.write("shared.plist", try FirebaseAppTests.plist(shared, format: .binary))
        #expect(try FirebaseOptions.load(contentsOfFile: sharedPath).googleAppID == "1:1:ios:same")
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try FirebaseAppTests.Directory()
        let fifo = directory.url.appendingPathComponent("GoogleService-Info.plist").path
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect { try FirebaseOptions.load(contentsOfFile: fifo) } throws: { "\($0)".contains("not a regular file") }
        #expect { try AuthAppOptions.load(from: URL(fileURLWithPath: fifo)) } throws: { "\($0)".contains("not a regular file") }
        #expect {
            try FirebaseOptions.loadDefault(environment: ["GOOGLE_SERVICE_INFO_PATH": fifo], bundleDirectory: "/nonexistent", currentDirectory: "/nonexistent")
        } throws: { "\($0)".contains("not a regular file") }
        #expect { try FirebaseOptions.load(contentsOfFile: directory.url.path) } throws: { "\($0)".contains("not a regular file") }
    }

    @Test func theWorkingDirectorysFileMustBeTheUsersOwnAndNotWritableByOthers() throws {
        let bundle = try FirebaseAppTests.Directory(), work = try FirebaseAppTests.Directory()
        let path = try work.write("GoogleService-Info.plist", try FirebaseAppTests.plist(FirebaseAppTests.serviceInfo))
        func load() throws(FirebaseOptions.LoadError) -> FirebaseOptions {
            try FirebaseOptions.loadDefault(environment: [:], bundleDirectory: bundle.url.path, currentDirectory: work.url.path)
        }
        #expect(try load().apiKey == "AIzaSyPlist", "the user's own file, mode 0644")
        try #require(chmod(path, 0o666) == 0)
        #expect { try load() } throws: { "\($0)".contains("writable by every user") && "\($0)".contains("GOOGLE_SERVICE_INFO_PATH") }
        try #require(chmod(path, 0o644) == 0)
        if geteuid() == 0 {
            try #require(chown(path, 65534, 65534) == 0)
            #expect { try load() } throws: { "\($0)".contains("owned by another user") }
            // The same file named by the variable, or beside the executable, is the app's choice: it is read.
            #expect(try FirebaseOptions.loadDefault(
                environment: ["GOOGLE_SERVICE_INFO_PATH": path], bundleDirectory: bundle.url.path, currentDirectory: "/nonexistent").apiKey == "AIzaSyPlist")
            #expect(try FirebaseOptions.loadDefault(environment: [:], bundleDirectory: work.url.path, currentDirectory: "/nonexistent").apiKey == "AIzaSyPlist")
        }
    }
}
