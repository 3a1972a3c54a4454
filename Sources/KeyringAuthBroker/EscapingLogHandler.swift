import Logging
import SystemSupport

/// The broker's log handler: what it logs is escaped for a terminal before it is written (a message and metadata may
/// quote what a caller sent), so that no value can forge a line of the log or steer the terminal that shows it.
struct EscapingLogHandler: LogHandler {
    private var handler: any LogHandler

    init(_ handler: any LogHandler) {
        self.handler = handler
    }

    var logLevel: Logger.Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { handler.metadata }
        set { handler.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.escapedForTerminal)"
        event.metadata = event.metadata?.mapValues { Self.escaped($0) }
        handler.log(event: event)
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let string): .string(string.escapedForTerminal)
        case .stringConvertible(let convertible): .string(convertible.description.escapedForTerminal)
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(values.mapValues(escaped))
        }
    }
}
