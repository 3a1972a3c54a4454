import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Small files read and written whole. A read has limits: a regular file only (a FIFO or a device is refused without
/// waiting on it), at most a given number of bytes; for files anyone of the session may have put in place. A file is put
/// in place whole or not at all (``place(_:at:_:)``).
package enum SmallFile {
    /// A failed system call, with what it was doing.
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let operation: String
        package let code: Int32

        package init(_ operation: String, _ code: Int32 = errno) {
            self.operation = operation
            self.code = code
        }

        package var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

    /// How ``place(_:at:_:)`` puts the new file at its path.
    package enum Placement: Sendable {
        /// Renamed over whatever is there.
        case replacing
        /// Linked to the path only while nothing is there: a file that exists, or appears meanwhile, is kept.
        case ifMissing
    }

    /// What reading found.
    package enum Reading: Equatable, Sendable {
        case missing
        case contents(Data)
        /// Larger than the limit (at least this many bytes); not read whole.
        case tooLarge(Int)
        /// A FIFO, a device, a directory or a socket.
        case notRegular
        /// A system call failed: which, and its `errno`.
        case failed(operation: String, code: Int32)
    }

    /// The file at `path`, read whole when it is a regular file of at most `limit` bytes.
    /// - Parameter followingLinks: `false` refuses a symbolic link as the last component (`O_NOFOLLOW`: `ELOOP`).
    package static func read(_ path: String, limit: Int, followingLinks: Bool = true) -> Reading {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .failed(operation: "open", code: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failed(operation: "fstat", code: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .notRegular }
        guard Int(status.st_size) <= limit else { return .tooLarge(Int(status.st_size)) }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(operation: "read", code: errno)
            }
            if count == 0 { return .contents(contents) }
            contents.append(contentsOf: buffer[..<count])
            // The file may grow while it is read.
            if contents.count > limit { return .tooLarge(contents.count) }
        }
    }

    /// Writes all of `data` to `descriptor`, again after an interruption; `false`, with `errno` set, when a write fails.
    package static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if count == 0 {
                    errno = EIO
                    return false
                }
                offset += count
            }
            return true
        }
    }

    /// Puts a file holding `data` (mode 0600) at `path`, whole or not at all: written to a new file beside it, flushed to
    /// disk (`fsync`), then renamed or linked to `path`, and the folder flushed too. The new file is removed in every
    /// case; on failure `path` is as it was.
    ///
    /// - Returns: Whether the file was put in place: `false` only for ``Placement/ifMissing`` with a file at `path`.
    /// - Throws: ``Failure``; the folder must exist.
    @discardableResult
    package static func place(_ data: Data, at path: String, _ placement: Placement) throws(Failure) -> Bool {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(folder.isEmpty ? "" : folder)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Failure("creating \(temporary)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }  // after a link, the new file's second name
        do {
            defer { close(descriptor) }
            guard writeAll(data, to: descriptor) else { throw Failure("write") }
            guard fsync(descriptor) == 0 else { throw Failure("fsync") }
        }
        switch placement {
        case .replacing:
            guard rename(temporary, path) == 0 else { throw Failure("rename") }
            renamed = true
        case .ifMissing:
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { return false }
                throw Failure("link")
            }
        }
        syncFolder(of: path)
        return true
    }

    /// Removes the file at `path`, and flushes its folder; no file is not an error.
    package static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw Failure("unlink") }
        syncFolder(of: path)
    }

    /// Makes a rename, link or unlink in `path`'s folder durable; a failure only weakens durability, so it is ignored.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
