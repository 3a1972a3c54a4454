import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Small files read and written whole. A read has limits: a regular file only (a FIFO or a device is refused without
/// waiting on it), at most a given number of bytes; for files anyone of the session may have put in place.
package enum SmallFile {
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
}
