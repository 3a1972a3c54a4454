import Logging
import Synchronization

/// A `Logger` whose messages a test can read (level and message; metadata left out).
package final class LogRecorder: Sendable {
    private let messages = Mutex<[(Logger.Level, String)]>([])
    /// The warnings, for tests that wait for one.
    package let warnings = Mailbox<String>()

    package init() {}

    /// A logger that records into this recorder, at every level.
    package var logger: Logger {
        var logger = Logger(label: "LogRecorder") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The messages logged at `level`, in order.
    package func messages(at level: Logger.Level) -> [String] {
        messages.withLock { $0.filter { $0.0 == level }.map(\.1) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.messages.withLock { $0.append((event.level, "\(event.message)")) }
            if event.level == .warning { recorder.warnings.post("\(event.message)") }
        }
    }
}
