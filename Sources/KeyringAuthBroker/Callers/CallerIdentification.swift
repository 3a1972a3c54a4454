import CPsl
import Foundation

/// Tells who a process is from what the kernel shows of it, as xdg-desktop-portal does
/// (`xdp-app-info-flatpak.c`, `xdp-app-info-snap.c`): first Flatpak, then Snap, else the host.
///
/// For a Flatpak app, the process connected to the bus is Flatpak's xdg-dbus-proxy, which runs in a
/// sandbox holding the app's own `/.flatpak-info`; the file is bind-mounted by Flatpak, so the app
/// cannot replace it. A process that cannot be read (it ended, `/proc` is hidden) is not taken for
/// the host: identification fails and the call is refused.
enum CallerIdentification {
    /// The largest `.flatpak-info` read (Flatpak's are about a kilobyte).
    static let maximumInfoSize = 64 * 1024

    /// Why a process could not be identified.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Who process `pid` is. With the process's `pidfd` (where the bus gives one), the answer holds only if that
    /// process is `pid` and still runs once its files are read, so that a process ID reused meanwhile is not read
    /// for it. `procRoot` is `/proc` except in tests.
    static func identify(pid: pid_t, pidfd: Int32? = nil, procRoot: String = "/proc") throws(Failure) -> CallerIdentity {
        if let pidfd { try checkRunning(pidfd, is: pid) }
        let identity: CallerIdentity
        if let info = try flatpakInfo(pid: pid, procRoot: procRoot) {
            identity = CallerIdentity(caller: .flatpak(appID: info.appID), sharesNetwork: info.sharesNetwork, pid: pid)
        } else if let snap = try snapName(pid: pid, procRoot: procRoot) {
            // A snap's interfaces are not readable here; a snap is served only where a grant file names it.
            identity = CallerIdentity(caller: .snap(name: snap), sharesNetwork: true, pid: pid)
        } else {
            identity = CallerIdentity(caller: .host, sharesNetwork: true, pid: pid)
        }
        if let pidfd { try checkRunning(pidfd, is: pid) }
        return identity
    }

    /// Checks that `pidfd` refers to process `pid` (its `Pid:` in `/proc/self/fdinfo`) and that it still runs
    /// (a pidfd polls readable once its process has ended).
    static func checkRunning(_ pidfd: Int32, is pid: pid_t) throws(Failure) {
        let file = open("/proc/self/fdinfo/\(pidfd)", O_RDONLY | O_CLOEXEC)
        guard file >= 0, let info = readBounded(file, limit: 4096) else {
            if file >= 0 { close(file) }
            throw Failure(description: "the caller's process descriptor cannot be read")
        }
        close(file)
        let fdPid = info.split(separator: "\n").first { $0.hasPrefix("Pid:") }.flatMap { pid_t($0.dropFirst(4).trimmingCharacters(in: .whitespaces)) }
        guard fdPid == pid else { throw Failure(description: "the caller's process descriptor is not of process \(pid)") }
        var poll = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, 0) == 0 else { throw Failure(description: "the caller's process \(pid) has ended") }
    }

    /// What `/proc/PID/root/.flatpak-info` says, or `nil` when the process has no such file.
    static func flatpakInfo(pid: pid_t, procRoot: String = "/proc") throws(Failure) -> FlatpakInfo? {
        let rootPath = "\(procRoot)/\(pid)/root"
        let root = open(rootPath, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
        guard root >= 0 else { throw Failure(description: "process \(pid) cannot be inspected (\(String(cString: strerror(errno))))") }
        defer { close(root) }
        // O_NONBLOCK: a FIFO planted there must not hang the broker (it is then refused as not a regular file).
        let file = openat(root, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(description: "the .flatpak-info of process \(pid) cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "the .flatpak-info of process \(pid) is not a regular file")
        }
        guard let contents = readBounded(file, limit: maximumInfoSize) else {
            throw Failure(description: "the .flatpak-info of process \(pid) cannot be read, or is larger than \(maximumInfoSize) bytes")
        }
        return try FlatpakInfo(contents)
    }

    /// The snap name in `/proc/PID/cgroup` (a `snap.NAME.…` unit), or `nil`.
    static func snapName(pid: pid_t, procRoot: String = "/proc") throws(Failure) -> String? {
        let file = open("\(procRoot)/\(pid)/cgroup", O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard file >= 0 else { throw Failure(description: "the cgroup of process \(pid) cannot be read") }
        defer { close(file) }
        guard let contents = readBounded(file, limit: maximumInfoSize) else {
            throw Failure(description: "the cgroup of process \(pid) cannot be read")
        }
        return SnapCgroup.snapName(in: contents)
    }

    private static func readBounded(_ file: Int32, limit: Int) -> String? {
        var data = [UInt8](repeating: 0, count: limit + 1)
        var total = 0
        while total <= limit {
            let count = data.withUnsafeMutableBytes { read(file, $0.baseAddress! + total, limit + 1 - total) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            total += count
        }
        guard total <= limit else { return nil }
        return String(decoding: data[..<total], as: UTF8.self)
    }
}

/// The parts of a `.flatpak-info` key file the broker reads: `[Application] name`, which must be a
/// valid app ID, `[Instance] instance-id`, which must be there, and `[Context] shared`, the list of what the
/// sandbox shares with the host (`network;ipc;`), as `flatpak_context_save_metadata` writes it.
struct FlatpakInfo {
    let appID: String
    /// Whether the app may reach the network itself (`--share=network`).
    let sharesNetwork: Bool

    init(_ contents: String) throws(CallerIdentification.Failure) {
        let file = try KeyFile(contents)
        guard let name = file.value(section: "Application", key: "name"), AppID.isValid(name) else {
            throw .init(description: "a .flatpak-info without a valid [Application] name")
        }
        guard let instance = file.value(section: "Instance", key: "instance-id"), !instance.isEmpty else {
            throw .init(description: "a .flatpak-info without [Instance] instance-id")
        }
        appID = name
        // A GLib string list: elements ending in ';' (the last one's may be left out). No share, no network.
        let shared = file.value(section: "Context", key: "shared") ?? ""
        sharesNetwork = shared.split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces) == "network" }
    }
}

/// GLib's key-file format, as far as `.flatpak-info` uses it: `[Section]` lines, `key=value` lines,
/// comments and blank lines. A section or a key of a section written twice is refused: GLib would merge the
/// sections and take the last value, and Flatpak writes neither, so such a file was not written by Flatpak.
struct KeyFile {
    private var values: [String: [String: String]] = [:]

    init(_ contents: String) throws(CallerIdentification.Failure) {
        var section: String?
        for rawLine in contents.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = String(line.dropFirst().dropLast())
                guard values[name] == nil else { throw .init(description: "a .flatpak-info with the section [\(name)] twice") }
                values[name] = [:]
                section = name
                continue
            }
            guard let section, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard values[section]?[key] == nil else { throw .init(description: "a .flatpak-info with [\(section)] \(key) twice") }
            values[section, default: [:]][key] = value
        }
    }

    func value(section: String, key: String) -> String? { values[section]?[key] }
}

/// Flatpak's rules for an application ID (`flatpak_is_valid_name`): at most 255 bytes, at least three
/// dot-separated elements, each of ASCII letters, digits, `_` and `-` (`-` only in the last), none
/// empty or starting with a digit.
enum AppID {
    static func isValid(_ candidate: String) -> Bool {
        guard candidate.utf8.count <= 255 else { return false }
        let elements = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for (index, element) in elements.enumerated() {
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            let last = index == elements.count - 1
            for scalar in element.unicodeScalars {
                let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || (last && scalar == "-")
                guard allowed else { return false }
            }
        }
        return true
    }

    /// The domain an app ID belongs to: its elements but the last (`com.example` for `com.example.Notes`).
    static func domain(of appID: String) -> [Substring] {
        Array(appID.split(separator: ".").dropLast())
    }

    /// The domain under which the app may use groups, or `nil` when its app ID gives none: a domain that starts
    /// with an Apple-style element (``isApplePrefix(_:)``), a code host's own domain without the user's element
    /// (Flathub's rule: `io.github.user.App`, never `io.github.App`), or a public suffix (`uk.co`, `io.github`).
    static func groupDomain(of appID: String) -> [Substring]? {
        let domain = domain(of: appID)
        guard domain.count >= 2, !isApplePrefix(domain[0]) else { return nil }
        if domain.count == 2, isCodeHost(domain[0], domain[1]) { return nil }
        let name = domain.reversed().joined(separator: ".").lowercased()
        guard !PublicSuffixes.contains(name) else { return nil }
        return domain
    }

    /// An Apple-style first element of a group: `group`, or a team ID (capitals and digits, as `ABCDE12345`).
    static func isApplePrefix(_ element: Substring) -> Bool {
        element == "group" || (!element.isEmpty && element.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
    }

    /// The code hosts whose app IDs Flathub requires to name the user too (flatpak-builder-lint's
    /// `appid-code-hosting-too-few-components` and its list of hosts): any top-level domain with `github`,
    /// `gitlab` or `codeberg`, and `io.frama`, `io.sourceforge`, `net.sourceforge`.
    static func isCodeHost(_ topLevel: Substring, _ second: Substring) -> Bool {
        let (topLevel, second) = (topLevel.lowercased(), second.lowercased())
        return ["github", "gitlab", "codeberg"].contains(second)
            || [("io", "frama"), ("io", "sourceforge"), ("net", "sourceforge")].contains { $0 == (topLevel, second) }
    }
}

/// The Public Suffix List, as libpsl builds it in: names under which anyone may register a domain (`co.uk`), and
/// code hosts' user domains (`github.io`), neither of which is any one developer's.
enum PublicSuffixes {
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    /// libpsl's built-in list, read-only (libpsl's own, never freed).
    private static let builtIn = Context(pointer: psl_builtin())

    static func contains(_ name: String) -> Bool {
        // Without the built-in list, every name counts as a suffix: no group is granted on a guess.
        guard let list = builtIn.pointer else { return true }
        return psl_is_public_suffix2(list, name, PSL_TYPE_ANY) != 0
    }
}

/// A Snap's processes run in a cgroup named for it: `snap.NAME.APP-UUID.scope` or `snap.NAME.APP.service`.
enum SnapCgroup {
    static func snapName(in cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            // hierarchy-ID:controllers:path
            guard let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last else { continue }
            for component in path.split(separator: "/") where component.hasPrefix("snap.") {
                let parts = component.split(separator: ".")
                if parts.count >= 3, !parts[1].isEmpty { return String(parts[1]) }
            }
        }
        return nil
    }
}
