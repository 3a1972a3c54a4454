import Logging
import Synchronization
import Testing
@testable import KeyringAuthBroker

/// The broker's log never carries a control character a caller sent: no forged line, no terminal escape.
@Suite struct EscapingLogHandlerTests {
    /// A handler that keeps what reaches it.
    final class Capture: Sendable {
        let events = Mutex<[(message: String, metadata: [String: String])]>([])
    }

    struct CapturingHandler: LogHandler {
        let capture: Capture
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
            capture.events.withLock { $0.append((event.message.description, metadata)) }
        }
    }

    @Test func messagesAndMetadataAreEscaped() throws {
        let capture = Capture()
        let logger = Logger(label: "test") { _ in EscapingLogHandler(CapturingHandler(capture: capture)) }
        logger.info("Refused \("1:42\ninfo keyring-auth-broker: forged")", metadata: ["appID": "x\u{1b}[2J", "list": .array(["a\rb"])])
        let event = try #require(capture.events.withLock { $0.first })
        for text in [event.message] + Array(event.metadata.values) {
            #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(text.debugDescription)")
        }
        #expect(event.message.contains("forged") && event.metadata["appID"]?.contains("[2J") == true, "the text itself stays, escaped")
    }
}
