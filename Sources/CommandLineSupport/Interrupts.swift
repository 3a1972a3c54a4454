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

/// SIGINT or SIGTERM, caught from when this is made: make it before telling anyone the process is ready, so that
/// a signal sent at once is not lost (Dispatch blocks both signals, and a blocked signal still pending when its
/// handling turns to "ignore" is discarded: the process would then wait for ever).
package struct InterruptSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let interrupts: Interrupts

    package init() {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        self.stream = stream
        interrupts = Interrupts { continuation.finish() }
    }

    /// Returns when SIGINT or SIGTERM has arrived since this was made.
    package func wait() async {
        for await _ in stream {}
        withExtendedLifetime(interrupts) {}
    }
}
