import Foundation
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// A child process driven line by line: lines written to its standard input, its standard output
/// read as lines the moment it prints them. Both go through FIFOs in a throwaway directory;
/// standard error goes to a file there.
package final class LineChannel: Sendable {
    package let child: ChildProcess
    /// Standard output, one value per line (without the newline), closed at end of output.
    package let lines = Mailbox<String>()
    private let input: FileHandle
    private let directory: URL

    /// Starts `arguments[0]`; `environment` replaces the whole environment when given.
    package init(_ arguments: [String], environment: [String: String]? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("line-channel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (inPath, outPath, errPath) = (
            directory.appendingPathComponent("in"), directory.appendingPathComponent("out"),
            directory.appendingPathComponent("err"))
        try Data().write(to: errPath)
        guard mkfifo(inPath.path, 0o600) == 0, mkfifo(outPath.path, 0o600) == 0 else {
            throw Subprocess.Failure(description: "mkfifo failed: \(String(cString: strerror(errno)))")
        }
        // posix_spawn returns once the child has opened its streams, and opening one end of a FIFO
        // waits for the other: this end of each is opened first, without waiting. The input is opened
        // for reading and writing, which Linux allows without a reader. Neither is inherited: the child
        // would otherwise hold a writer of its own input and never see it end.
        let writeEnd = open(inPath.path, O_RDWR | O_CLOEXEC)
        let readEnd = open(outPath.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard writeEnd >= 0, readEnd >= 0 else {
            throw Subprocess.Failure(description: "cannot open the FIFOs: \(String(cString: strerror(errno)))")
        }
        input = FileHandle(fileDescriptor: writeEnd, closeOnDealloc: true)
        let output = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true)
        child = try ChildProcess(arguments, environment: environment, stdin: inPath, stdout: outPath, stderr: errPath)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
        // A thread of its own reads (blocking), never the cooperative pool.
        let lines = lines
        try OwnThread.detach(name: "line-channel") {
            var pending = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.post(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { lines.post(String(decoding: pending, as: UTF8.self)) }
            lines.close()
        }
    }

    /// Takes output lines until one satisfies `predicate` (by default the next line), waiting at
    /// most `limit`.
    ///
    /// - Throws: `Subprocess.Failure` naming the lines skipped and what the child wrote to standard error.
    package func nextLine(within limit: Duration = .seconds(30), where predicate: (String) -> Bool = { _ in true }) async throws -> String {
        do {
            return try await lines.next(within: limit, where: predicate)
        } catch {
            throw Subprocess.Failure(description: "\(error); standard error: \(standardError.suffix(4000))")
        }
    }

    /// Writes `line` and a newline to the child's standard input.
    package func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// What the child wrote to standard error so far.
    package var standardError: String {
        (try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? ""
    }

    /// Ends standard input, waits for the child to exit (killing it after `limit`), and returns its status.
    package func finish(within limit: Duration = .seconds(30)) async -> Int32 {
        try? input.close()
        let killer = Task { [child] in
            try await Task.sleep(for: limit)
            child.send(SIGKILL)
        }
        defer { killer.cancel() }
        return await child.exitStatus()
    }

    deinit {
        child.send(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }
}
