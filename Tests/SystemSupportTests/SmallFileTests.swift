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

    /// A file put in place is whole, mode 0600, with nothing left beside it; `ifMissing` never replaces a file that is
    /// there, and a failure leaves the path as it was. (That the new file is flushed before it is renamed or linked is
    /// not observable without cutting the power; the order is in `place`.)
    @Test func aFileIsPutInPlaceWholeOrNotAtAll() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Data((0..<70_000).map { UInt8($0 % 249) })
        #expect(try SmallFile.place(first, at: path("file"), .ifMissing))
        #expect(SmallFile.read(path("file"), limit: 70_000) == .contents(first))
        var status = stat()
        #expect(stat(path("file"), &status) == 0 && status.st_mode & 0o777 == 0o600 && status.st_nlink == 1)
        // A file that is there is kept by `ifMissing`, replaced by `replacing`.
        #expect(try !SmallFile.place(Data("second".utf8), at: path("file"), .ifMissing))
        #expect(SmallFile.read(path("file"), limit: 70_000) == .contents(first))
        #expect(try SmallFile.place(Data("third".utf8), at: path("file"), .replacing))
        #expect(SmallFile.read(path("file"), limit: 70_000) == .contents(Data("third".utf8)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["file"], "nothing left beside it")
        // A directory in the way of the rename: the failure is said, and the path and the folder are as they were.
        try FileManager.default.createDirectory(atPath: path("taken"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path("taken/inside")))
        let failure = #expect(throws: SmallFile.Failure.self) { try SmallFile.place(Data("y".utf8), at: path("taken"), .replacing) }
        #expect(failure?.operation == "rename")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["file", "taken"])
        #expect(SmallFile.read(path("taken/inside"), limit: 10) == .contents(Data("x".utf8)))
        // No folder: nothing is made.
        #expect(throws: SmallFile.Failure.self) { try SmallFile.place(Data("z".utf8), at: path("none/file"), .ifMissing) }
        #expect(!FileManager.default.fileExists(atPath: path("none")))
        try SmallFile.remove(path("file"))
        try SmallFile.remove(path("file"))  // no file is not an error
        #expect(SmallFile.read(path("file"), limit: 10) == .missing)
    }
}
