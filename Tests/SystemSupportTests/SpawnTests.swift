import Foundation
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The one spawn policy: a child starts as a shell would start it, whatever its parent's thread blocks or ignores.
@Suite struct SpawnTests {
    @Test func aChildStartsWithNoSignalBlockedOrIgnored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        try Data().write(to: output)
        // Spawned from a thread that blocks SIGTERM and SIGINT and a process that ignores SIGPIPE, as NIO's and Dispatch's do.
        let exit = try await OwnThread.run(name: "spawn-test") { () -> Int32 in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGINT)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let previous = signal(SIGHUP, SIG_IGN)
            defer { signal(SIGHUP, previous) }
            let devNull = URL(fileURLWithPath: "/dev/null")
            guard let child = try? ChildProcess(["cat", "/proc/self/status"], stdin: devNull, stdout: output, stderr: devNull) else {
                return -1
            }
            return child.waitBlocking()
        }
        #expect(exit == 0)
        // The masks of the standard signals 1–31; 32 and 33 are glibc's own, which posix_spawn leaves alone.
        let status = try String(contentsOf: output, encoding: .utf8)
        func standardSignals(_ field: String) -> UInt64? {
            status.split(separator: "\n").first { $0.hasPrefix(field + ":\t") }
                .flatMap { UInt64($0.dropFirst(field.count + 2), radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(standardSignals("SigBlk") == 0, "\(status)")
        #expect(standardSignals("SigIgn") == 0, "\(status)")
    }

    @Test func aChildGetsNoDescriptorBeyondItsStandardStreams() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        try Data().write(to: output)
        // A descriptor opened without close-on-exec, as a library or an accept() may leave one.
        let inheritable = open("/dev/null", O_RDONLY)
        try #require(inheritable >= 0)
        defer { close(inheritable) }
        let devNull = URL(fileURLWithPath: "/dev/null")
        let child = try ChildProcess(["ls", "/proc/self/fd"], stdin: devNull, stdout: output, stderr: devNull)
        #expect(await child.exitStatus() == 0)
        // ls's own descriptor for the directory it lists is the fourth.
        let descriptors = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(descriptors == [0, 1, 2, 3], "\(descriptors)")
    }

    @Test func aProgramThatIsNotThereIsAFailureThatSaysSo() {
        let devNull = URL(fileURLWithPath: "/dev/null")
        #expect { try ChildProcess(["/nonexistent/program"], stdin: devNull, stdout: devNull, stderr: devNull) }
            throws: { "\($0)".contains("could not start /nonexistent/program") }
        #expect(Spawn.detached("/nonexistent/program", [])?.contains("could not be started") == true)
    }
}
