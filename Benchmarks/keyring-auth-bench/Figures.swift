import Foundation
import SecretKeychain
import Subprocesses

extension Array where Element == Double {
    /// The nearest-rank percentile (`fraction` in 0…1) of a non-empty array.
    func percentile(_ fraction: Double) -> Double {
        let sorted = self.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
    }

    /// The median of a non-empty array.
    var median: Double {
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// What the figures were measured on.
enum Machine {
    /// The first line `program --version` prints, or the program's name and "(version unknown)".
    static func version(of program: String, _ arguments: [String] = ["--version"]) async -> String {
        let result = try? await Subprocess.run(program, arguments)
        let line = result.flatMap { $0.status == 0 ? $0.output + $0.standardError : nil }?
            .split(separator: "\n").first.map(String.init)
        return line ?? "\(program) (version unknown)"
    }

    /// The Secret Service provider the session bus has, with its version: `KWallet 5.103.0-1`, ….
    static var provider: String {
        let diagnosis = SecretServiceStore().diagnose()
        guard let provider = diagnosis.provider else { return "no Secret Service provider" }
        return [provider.description, diagnosis.providerVersion].compactMap { $0 }.joined(separator: " ")
    }

    /// The processor's model name, from /proc/cpuinfo.
    static var processor: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown processor"
    }

    /// The kernel release.
    static var kernel: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
