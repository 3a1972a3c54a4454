import Foundation

/// Returns when SIGINT or SIGTERM arrives.
func waitForInterrupt() async {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    var sources: [any DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { continuation.finish() }
        source.resume()
        sources.append(source)
    }
    for await _ in stream {}
    sources.forEach { $0.cancel() }
}
