import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading an options file with limits: a regular file only (a FIFO or a device is refused without waiting on
/// it), at most ``FirebaseOptions/maximumFileBytes``, and, for a file found in the working directory, one that
/// the user owns and that others cannot write.
enum OptionsFile {
    /// The file's bytes.
    ///
    /// - Parameter ownedByTheUser: Also refuses a file another user owns or that others may write: where the
    ///   file is looked for in the working directory, which may be a directory others write to (`/tmp`).
    /// - Throws: ``FirebaseOptions/LoadError`` naming the file and what is wrong.
    static func read(_ path: String, ownedByTheUser: Bool = false) throws(FirebaseOptions.LoadError) -> Data {
        let named = String(reflecting: path)
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .init(description: "Cannot read the Firebase options file \(named): \(String(cString: strerror(errno))).")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .init(description: "Cannot read the Firebase options file \(named): \(String(cString: strerror(errno))).")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .init(description: "The Firebase options file \(named) is not a regular file (a FIFO, a device or a directory); "
                + "give the path of the app's \(FirebaseOptions.plistName) or \(FirebaseOptions.jsonName).")
        }
        if ownedByTheUser && (status.st_uid != geteuid() || status.st_mode & S_IWOTH != 0) {
            throw .init(description: "The Firebase options file \(named) in the working directory is "
                + (status.st_uid != geteuid() ? "owned by another user" : "writable by every user")
                + ", so anyone could have put it there and receive the passwords typed into this app; it was not read. "
                + "Run the app from a directory of your own, put the file beside the executable, or set "
                + "\(FirebaseOptions.pathVariable) to its path.")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let data: Data
        do {
            data = try handle.read(upToCount: FirebaseOptions.maximumFileBytes + 1) ?? Data()
        } catch {
            throw .init(description: "Cannot read the Firebase options file \(named): \(error.localizedDescription)")
        }
        guard data.count <= FirebaseOptions.maximumFileBytes else {
            throw .init(description: "The Firebase options file \(named) is over 1 MiB; "
                + "it is not a \(FirebaseOptions.plistName) or \(FirebaseOptions.jsonName) from the Firebase console.")
        }
        return data
    }
}
