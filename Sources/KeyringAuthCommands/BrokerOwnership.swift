import Foundation
import SystemSupport

/// Who holds the broker's name on the session bus: the installed broker (the program its activation file starts) or
/// another program, which then receives the calls meant for the broker, every app's passwords and tokens among them;
/// and who else is queued for the name, to receive it were the broker to give it back.
enum BrokerOwnership {
    /// The session bus's standard service folders, in the order the bus reads them (the first file for a name counts):
    /// `$XDG_RUNTIME_DIR`, `$XDG_DATA_HOME` (`~/.local/share`), each of `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share`),
    /// then `/usr/share`, each followed by `dbus-1/services`.
    static func serviceDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        func nonEmpty(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        var bases: [String] = []
        if let runtime = nonEmpty("XDG_RUNTIME_DIR") { bases.append(runtime) }
        if let data = nonEmpty("XDG_DATA_HOME") ?? nonEmpty("HOME").map({ $0 + "/.local/share" }) { bases.append(data) }
        bases += (nonEmpty("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        bases.append("/usr/share")
        var seen = Set<String>()
        return bases.filter { $0.hasPrefix("/") }.map { $0 + "/dbus-1/services" }.filter { seen.insert($0).inserted }
    }

    /// The program the activation file of `name` starts (its `Exec=`'s first word) and that file, from the first
    /// service folder that has `NAME.service`; `nil` when none has.
    static func installedProgram(of name: String) -> (program: String, file: String)? {
        for directory in serviceDirectories() {
            let file = "\(directory)/\(name).service"
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            let exec = text.split(separator: "\n").first { $0.hasPrefix("Exec=") }
            guard let program = exec?.dropFirst("Exec=".count).split(whereSeparator: \.isWhitespace).first else { continue }
            return (String(program).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")), file)
        }
        return nil
    }

    /// The executable of process `pid` (`/proc/PID/exe`), without the " (deleted)" of a file replaced since it started.
    static func executable(of pid: Int32) -> String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else { return nil }
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
    }

    /// "pid 1234, /usr/bin/program", with the Flatpak app whose sandbox it runs in (its `/.flatpak-info`), where known.
    static func describe(_ connection: String, limit: Duration = .seconds(5)) -> String {
        guard let pid = try? SessionBusCall.processID(of: connection, limit: limit) else { return "its process unknown" }
        var words = "pid \(pid), \(executable(of: pid) ?? "executable unknown")"
        if let info = try? String(contentsOfFile: "/proc/\(pid)/root/.flatpak-info", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("name=") })
        {
            words += ", Flatpak app \(line.dropFirst("name=".count))"
        }
        return words
    }

    /// What `keyring-auth doctor` says of the broker's name while it has an owner: the `broker` check, and a
    /// `broker queue` check when other connections are queued for the name.
    static func checks(of name: String) -> [Doctor.Check] {
        let permission = "an app given --own-name=\(name) (Flatpak) can take the name while no broker runs, or queue for it: "
            + "take that permission away (flatpak override --user --no-talk-name=\(name) APP-ID) and stop the process"
        var checks = [ownerCheck(of: name, permission: permission)]
        let owners = (try? SessionBusCall.queuedOwners(of: name, limit: .seconds(5))) ?? []
        let queued = owners.dropFirst()
        if !queued.isEmpty {
            let list = queued.map { "\($0) (\(describe($0)))" }.joined(separator: ", ")
            checks.append(Doctor.Check(
                name: "broker queue", ok: false,
                detail: "\(queued.count) other connection\(queued.count == 1 ? " is" : "s are") queued for \(name): \(list). The broker "
                    + "keeps its name while anyone waits; whoever waits would receive the calls meant for it, passwords and tokens "
                    + "among them, were the name free",
                fix: permission))
        }
        return checks
    }

    private static func ownerCheck(of name: String, permission: String) -> Doctor.Check {
        let owner = describe(name)
        let serving = "apps in other languages and Flatpak apps can share groups"
        guard let pid = try? SessionBusCall.processID(of: name, limit: .seconds(5)), let running = executable(of: pid) else {
            return Doctor.Check(name: "broker", ok: true, detail: "\(name) runs on this bus (\(owner)): \(serving)")
        }
        guard let installed = installedProgram(of: name) else {
            return Doctor.Check(
                name: "broker", ok: true,
                detail: "\(name) runs on this bus (\(owner)); no activation file for it in \(serviceDirectories().joined(separator: ", ")), "
                    + "so whether it is the installed broker is unknown")
        }
        let resolved = URL(fileURLWithPath: installed.program).resolvingSymlinksInPath().path
        guard resolved == URL(fileURLWithPath: running).resolvingSymlinksInPath().path else {
            return Doctor.Check(
                name: "broker", ok: false,
                detail: "\(name) is held by \(owner), not by the installed broker \(installed.program) (\(installed.file)): the calls "
                    + "meant for the broker, every app's passwords and tokens among them, go to that program",
                fix: permission + "; then change the passwords typed into apps that used the broker meanwhile")
        }
        return Doctor.Check(name: "broker", ok: true, detail: "\(name) runs on this bus (\(owner), the installed broker): \(serving)")
    }
}
