import Foundation

/// This process's threads and open descriptors, as `threads=T fds=F`, for tests that check what a run leaves behind.
package func processResources() -> String {
    let count = { (path: String) in (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? -1 }
    return "threads=\(count("/proc/self/task")) fds=\(count("/proc/self/fd"))"
}

/// The resident memory of process `pid` (this process by default) in KiB (`VmRSS`), or `nil` when it cannot be read.
package func residentKiB(of pid: String = "self") -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
}
