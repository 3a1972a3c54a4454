import Foundation
import SystemSupport
import Synchronization

/// SIGINT and SIGTERM caught instead of ending the process, from when this is made until it is
/// released; `handler` runs on a thread of its own, once for each signal. One at a time per process.
///
/// The signals are caught by a handler installed at once (`sigaction`), which only writes a byte to a pipe, on
/// whichever thread the kernel picks; a thread that never blocks them reads the pipe. Nothing depends on other
/// threads' signal masks (SwiftNIO's inherit their creator's) or on work done later on another queue: a Dispatch
/// signal source is registered by Dispatch's manager thread after `resume()` returns, and a signal that arrived
/// before then, while the process ignored it, was discarded.
package final class Interrupts: Sendable {
    private let writeEnd: Int32

    ///
    /// - Throws: ``CLIFailure`` (exit 1) when the process has no descriptor or thread left for it; nothing is caught then.
    package init(_ handler: @escaping @Sendable () -> Void) throws(CLIFailure) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw CLIFailure(.failure, "Cannot make a pipe for SIGINT and SIGTERM: \(String(cString: strerror(errno))).")
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The handler must never block: a burst of signals beyond the pipe's capacity is one interrupt anyway.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        self.writeEnd = writeEnd

        do throws(OwnThreadFailure) {
            try Self.startReading(readEnd, handler)
        } catch {
            close(readEnd)
            close(writeEnd)
            throw CLIFailure(.failure, "SIGINT and SIGTERM cannot be caught: \(error.explanation).")
        }
        precondition(
            interruptWriteEnd.compareExchange(expected: -1, desired: writeEnd, ordering: .sequentiallyConsistent).exchanged,
            "Only one Interrupts at a time")

        var action = sigaction()
        action.__sigaction_handler.sa_handler = interruptCaught
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for signalNumber in Self.signals { sigaction(signalNumber, &action, nil) }
    }

    /// Reads the pipe on a thread of its own that never blocks the signals, calling `handler` once a byte, until the
    /// write end is closed.
    private static func startReading(_ readEnd: Int32, _ handler: @escaping @Sendable () -> Void) throws(OwnThreadFailure) {
        try OwnThread.detach(name: "interrupts") {
            var signals = sigset_t()
            sigemptyset(&signals)
            for signalNumber in Self.signals { sigaddset(&signals, signalNumber) }
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            defer { close(readEnd) }
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    handler()
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return  // the write end was closed: released
                }
            }
        }
    }

    /// Ignores the signals again and ends the reading thread.
    deinit {
        for signalNumber in Self.signals { signal(signalNumber, SIG_IGN) }
        interruptWriteEnd.store(-1, ordering: .sequentiallyConsistent)
        close(writeEnd)
    }

    private static let signals = [SIGINT, SIGTERM]
}

/// The pipe the signal handler writes to, -1 when no ``Interrupts`` is alive.
private let interruptWriteEnd = Atomic<Int32>(-1)

/// The signal handler: async-signal-safe (an atomic load and `write`), `errno` kept.
private func interruptCaught(_ signalNumber: Int32) {
    let saved = errno
    defer { errno = saved }
    let writeEnd = interruptWriteEnd.load(ordering: .sequentiallyConsistent)
    guard writeEnd >= 0 else { return }
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    _ = write(writeEnd, &byte, 1)
}

/// SIGINT or SIGTERM, caught from when this is made: make it before telling anyone the process is ready, so that
/// a signal sent at once is not lost.
package struct InterruptSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let interrupts: Interrupts

    package init() throws(CLIFailure) {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        self.stream = stream
        interrupts = try Interrupts { continuation.finish() }
    }

    /// Returns when SIGINT or SIGTERM has arrived since this was made.
    package func wait() async {
        for await _ in stream {}
        withExtendedLifetime(interrupts) {}
    }
}
