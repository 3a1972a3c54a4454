import Foundation

/// SIGINT and SIGTERM caught instead of ending the process, from when this is made until it is
/// released; `handler` runs on a global queue for each one.
package final class Interrupts: @unchecked Sendable {
    // @unchecked: the sources are set once in `init` and only cancelled (thread-safe) in `deinit`.
    private let sources: [any DispatchSourceSignal]

    package init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}

/// Returns when SIGINT or SIGTERM arrives.
package func waitForInterrupt() async {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let interrupts = Interrupts { continuation.finish() }
    for await _ in stream {}
    withExtendedLifetime(interrupts) {}
}
