import ArgumentParser
import Foundation
import Synchronization

/// Standard input when it is piped in: read once, at most ``SecretInput/maximumBytes``, and handed out a line at a
/// time (a password, then an authenticator's code; an ID token, then an access token, then a code).
final class PipedLines: Sendable {
    static let shared = PipedLines()

    /// The lines not yet taken; `nil` until standard input is read.
    private let remaining = Mutex<[String]?>(nil)

    /// The next line, without its line break; `nil` when none is left.
    ///
    /// - Throws: `ValidationError` when standard input holds more than ``SecretInput/maximumBytes``.
    func next(_ what: String) throws -> String? {
        try remaining.withLock { (remaining: inout [String]?) throws -> String? in
            if remaining == nil {
                let text = String(decoding: try SecretInput.readAll(what), as: UTF8.self)
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
                }
                if text.hasSuffix("\n") { lines.removeLast() }
                remaining = lines
            }
            guard let first = remaining?.first else { return nil }
            remaining?.removeFirst()
            return first
        }
    }
}
