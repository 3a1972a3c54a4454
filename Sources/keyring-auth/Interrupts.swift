import Foundation

/// SIGINT and SIGTERM caught instead of ending the process, from when this is made until it is
/// released; `handler` runs on a global queue for each one.
final class Interrupts: @unchecked Sendable {
    // @unchecked: the sources are only created in `init` and cancelled in `deinit`.
    private var sources: [any DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}

/// Returns when SIGINT or SIGTERM arrives.
func waitForInterrupt() async {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let interrupts = Interrupts { continuation.finish() }
    for await _ in stream {}
    withExtendedLifetime(interrupts) {}
}
