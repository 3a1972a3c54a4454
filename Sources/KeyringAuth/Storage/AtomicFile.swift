#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SystemSupport

/// Small files written all at once or not at all (``SmallFile/place(_:at:_:)``: a new file beside the target, flushed,
/// then renamed over it). Only the owner may read them (mode 0600; a new directory is 0700).
enum AtomicFile {
    /// A failed system call, with what it was doing.
    typealias Failure = SmallFile.Failure

    /// The file's bytes, or `nil` when there is no file.
    ///
    /// - Throws: ``Failure``, also when the file is larger than `limit` bytes or not a regular file (it is not read then).
    static func contents(of url: URL, limit: Int) throws -> Data? {
        switch SmallFile.read(url.path, limit: limit, followingLinks: false) {
        case .missing: return nil
        case .contents(let data): return data
        case .tooLarge: throw Failure("read (larger than \(limit) bytes)", EFBIG)
        case .notRegular: throw Failure("open (not a regular file)", EINVAL)
        case .failed(let operation, let code): throw Failure(operation, code)
        }
    }

    /// Replaces the file at `url` with `contents`; on failure the file is as it was.
    static func replace(_ url: URL, with contents: Data, creatingDirectory directory: URL) throws {
        if mkdir(directory.path, 0o700) != 0, errno == ENOENT {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try SmallFile.place(contents, at: url.path, .replacing)
    }

    /// Removes the file at `url`; no file is not an error.
    static func remove(_ url: URL) throws {
        try SmallFile.remove(url.path)
    }
}
