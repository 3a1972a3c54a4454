#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SystemSupport

/// Small files written all at once or not at all: a temporary file beside the target, flushed,
/// then renamed over it. Only the owner may read them (mode 0600; a new directory is 0700).
enum AtomicFile {
    /// A failed system call, with what it was doing.
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let code: Int32

        init(_ operation: String, _ code: Int32 = errno) {
            self.operation = operation
            self.code = code
        }

        var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

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
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Failure("creating \(temporary)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            guard SmallFile.writeAll(contents, to: descriptor) else { throw Failure("write") }
            guard fsync(descriptor) == 0 else { throw Failure("fsync") }
        }
        guard rename(temporary, url.path) == 0 else { throw Failure("rename") }
        renamed = true
        syncDirectory(of: url)
    }

    /// Removes the file at `url`; no file is not an error.
    static func remove(_ url: URL) throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw Failure("unlink") }
        syncDirectory(of: url)
    }

    /// Makes a rename or unlink durable; a failure only weakens durability, so it is ignored.
    private static func syncDirectory(of url: URL) {
        let descriptor = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
