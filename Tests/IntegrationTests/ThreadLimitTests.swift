import Foundation
import KeyringTestSupport
import Subprocesses
import Testing

/// A process that has reached its task limit (systemd's `TasksMax` on a service, a container's pids limit) gets an
/// error from each call that needs a new thread, and goes on; once threads start again, each call works again.
@Suite struct ThreadLimitTests {
    /// Where this test may make a pids cgroup: cgroup v1's pids hierarchy, or cgroup v2's root where it offers pids
    /// to its children; `nil` where neither is writable (not root, or a container without them).
    static let pidsHierarchy: String? = {
        let v1 = "/sys/fs/cgroup/pids"
        if access(v1 + "/cgroup.procs", W_OK) == 0 { return v1 }
        let v2 = "/sys/fs/cgroup"
        let control = (try? String(contentsOfFile: v2 + "/cgroup.subtree_control", encoding: .utf8)) ?? ""
        return control.split(separator: " ").contains { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "pids" }
            && access(v2, W_OK) == 0 ? v2 : nil
    }()

    @Test(.enabled(if: pidsHierarchy != nil, "needs a pids cgroup this user may make (root, with cgroup v1's pids or v2's)"))
    func aProcessOutOfThreadsFailsEachCallThatNeedsOneAndGoesOn() async throws {
        let folder = "\(Self.pidsHierarchy!)/keyring-auth-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // The probe has exited by then, leaving the cgroup empty.
        defer { rmdir(folder) }
        let result = try await Subprocess.run(try Harness.product("thread-limit-probe"), [folder], limit: .seconds(120))
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.output)\(result.standardError)")
        let refused = "no thread could be started"
        let expected: [(String, String)] = [
            ("limited thread: ", refused), ("limited child: could not start /bin/true: ", refused), ("limited deadline: ", refused),
            ("limited bus call: the call was not made: ", refused),
            ("lifted thread: ", "ran"), ("lifted child: ", "exited 0"), ("lifted deadline: ", "fired"), ("lifted bus call: ", "answered"),
        ]
        #expect(lines.count == expected.count, "\(result.output)\(result.standardError)")
        for (line, (start, words)) in zip(lines, expected) {
            #expect(line.hasPrefix(start) && line.contains(words), "\(line)")
        }
    }
}
