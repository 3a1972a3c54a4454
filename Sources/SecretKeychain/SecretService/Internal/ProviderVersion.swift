import FoundationEssentials

/// The version of a provider's program, learnt without running it and without D-Bus (none of the
/// three providers publishes its version on the bus): the executable the process runs
/// (`/proc/PID/exe`), then the version of the Debian package that installs it, from dpkg's
/// database. Unknown when the executable is not one of the known providers', when dpkg has no
/// such package (another distribution, a build of one's own), or when the executable was replaced
/// since the process started (an upgrade: the running version is no longer the installed one).
struct ProviderVersionLookup {
    /// dpkg's database of installed packages.
    var statusPath = "/var/lib/dpkg/status"
    /// Larger than any real database: a bound on what is read.
    static let statusLimit = 64 << 20

    /// The Debian package that installs each provider's executable, by file name.
    static let packages = [
        "gnome-keyring-daemon": "gnome-keyring",
        "keepassxc": "keepassxc",
        "kwalletd5": "libkf5wallet-bin",
        "kwalletd6": "kwalletd6",
        "ksecretd": "kwalletd6",
    ]

    /// The executable of process `pid`, as the kernel shows it (with " (deleted)" when replaced).
    static func executable(pid: Int) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    /// The package and its installed version, for the executable at `executable`.
    func version(ofExecutable executable: String) -> (package: String, version: String)? {
        guard !executable.hasSuffix(" (deleted)"),
            let package = Self.packages[URL(fileURLWithPath: executable).lastPathComponent],
            let version = installedVersion(of: package)
        else { return nil }
        return (package, version)
    }

    /// The `Version:` of `package` in dpkg's database, when it is installed.
    func installedVersion(of package: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: statusPath),
            let size = attributes[.size] as? Int, size <= Self.statusLimit,
            let text = try? String(contentsOfFile: statusPath, encoding: .utf8)
        else { return nil }
        for stanza in text.split(separator: "\n\n") {
            let lines = stanza.split(separator: "\n")
            guard lines.contains(where: { $0 == "Package: \(package)" }),
                lines.contains(where: { $0.hasPrefix("Status: ") && $0.hasSuffix(" installed") })
            else { continue }
            return lines.first { $0.hasPrefix("Version: ") }.map { String($0.dropFirst("Version: ".count)) }
        }
        return nil
    }
}
