import Foundation
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Reading a small file another process may have put in place: whole, refused when too large or not a regular file,
/// and never waiting on a FIFO; and writing one whole.
@Suite struct SmallFileTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func aFileIsReadWholeUpToItsLimit() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let contents = Data((0..<40_000).map { UInt8($0 % 251) })
        try contents.write(to: URL(fileURLWithPath: path("file")))
        #expect(SmallFile.read(path("file"), limit: 40_000) == .contents(contents))
        #expect(SmallFile.read(path("file"), limit: 39_999) == .tooLarge(40_000))
        #expect(SmallFile.read(path("none"), limit: 10) == .missing)
    }

    @Test func aFIFOADirectoryAndALinkWhereNoneIsWantedAreRefusedWithoutWaiting() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(path("fifo"), 0o600) == 0)
        // Nobody writes to it: a plain open for reading would wait for ever.
        #expect(SmallFile.read(path("fifo"), limit: 10) == .notRegular)
        #expect(SmallFile.read(folder.path, limit: 10) == .notRegular)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path("target")))
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: path("target"))
        #expect(SmallFile.read(path("link"), limit: 10) == .contents(Data("x".utf8)))
        #expect(SmallFile.read(path("link"), limit: 10, followingLinks: false) == .failed(operation: "open", code: ELOOP))
    }

    @Test func everyByteIsWrittenOrTheFailureIsSaid() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let contents = Data((0..<300_000).map { UInt8($0 % 253) })
        let descriptor = open(path("written"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(SmallFile.writeAll(contents, to: descriptor))
        close(descriptor)
        #expect(SmallFile.read(path("written"), limit: 300_000) == .contents(contents))
        let readOnly = open(path("written"), O_RDONLY)
        defer { close(readOnly) }
        #expect(!SmallFile.writeAll(contents, to: readOnly) && errno == EBADF)
    }
}
