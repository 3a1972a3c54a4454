import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Standard input when it is piped in, handed out a line at a time (a password, then an authenticator's code; an ID
/// token, then an access token, then a code), at most ``SecretInput/maximumBytes`` in all. Each line is read when it is
/// asked for, not the whole input at once: an SMS code is written only once the SMS came, after the password was taken.
final class PipedLines: Sendable {
    static let shared = PipedLines()

    /// Bytes read and not yet handed out, how many were read in all, and whether standard input ended.
    private let buffer = Mutex<(bytes: [UInt8], total: Int, ended: Bool)>(([], 0, false))

    /// The next line, without its line break; `nil` when none is left.
    ///
    /// - Throws: `ValidationError` when standard input holds more than ``SecretInput/maximumBytes``.
    func next(_ what: String) throws -> String? {
        try buffer.withLock { (buffer: inout (bytes: [UInt8], total: Int, ended: Bool)) throws -> String? in
            if buffer.total == 0 { SecretInput.protectProcess() }
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !buffer.bytes.contains(UInt8(ascii: "\n")) && !buffer.ended {
                let count = read(STDIN_FILENO, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    buffer.ended = true
                    break
                }
                buffer.bytes += chunk[..<count]
                buffer.total += count
                guard buffer.total <= SecretInput.maximumBytes else {
                    throw ValidationError(
                        "Standard input holds more than \(SecretInput.maximumBytes / 1024) KiB; \(what) is far shorter. Pipe in only "
                            + "\(what), for example: printf '%s\\n' \"$VALUE\" | keyring-auth …")
                }
            }
            for index in chunk.indices { chunk[index] = 0 }
            guard !buffer.bytes.isEmpty else { return nil }
            let end = buffer.bytes.firstIndex(of: UInt8(ascii: "\n")) ?? buffer.bytes.endIndex
            var line = String(decoding: buffer.bytes[..<end], as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            buffer.bytes.removeSubrange(..<min(end + 1, buffer.bytes.endIndex))
            return line
        }
    }
}
