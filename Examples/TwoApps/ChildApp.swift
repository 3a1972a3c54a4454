import Foundation

/// This executable started again as another app: its standard output read line by line. When this
/// process ends, the child's standard input ends, and the child ends too.
final class ChildApp {
    private let process: Process
    private let lines: AsyncStream<String>
    private let exits: AsyncStream<Int32>
    /// Kept open while this process runs: the child watches it end.
    private let input = Pipe()

    init(arguments: [String], environment: [String: String]) throws {
        let output = Pipe()
        process = Process()
        process.executableURL = Bundle.main.executableURL
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        self.exits = exits
        process.terminationHandler = { process in
            exited.yield(process.terminationStatus)
            exited.finish()
        }
        let (lines, line) = AsyncStream<String>.makeStream()
        self.lines = lines
        try process.run()
        // A thread of its own reads (blocking), never Swift's cooperative pool.
        let reading = output.fileHandleForReading
        Thread {
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            line.finish()
        }.start()
    }

    /// The child's next line, or `nil` once its output has ended.
    func nextLine() async -> String? {
        var iterator = lines.makeAsyncIterator()
        return await iterator.next()
    }

    /// Waits for the child to exit.
    func exitStatus() async -> Int32 {
        var iterator = exits.makeAsyncIterator()
        return await iterator.next() ?? -1
    }
}
