import SystemSupport
import Foundation
import Logging
import KeyringTestSupport
import SecretKeychain

// keychain-probe write --service S --account A [--group G] [--repeats N]: stores standard input
// under the key N times (default 1), as another client of the Secret Service would.
// keychain-probe read --service S --account A [--group G] [--repeats N]: reads the key N times after ten reads
// not counted, and prints `before rss=K` and `after rss=K` (resident KiB), which the tests compare.
// keychain-probe list --group G: one line per item of G, its service, account and label
// separated by two spaces and escaped for the terminal (stored values are untrusted).
// keychain-probe cycle --group G [--repeats N]: prints `before threads=T fds=F` once one observation has begun and
// ended, then observes G and seven groups beside it (`during threads=T fds=F`), N times cancels one observation and begins it again, ends them
// all, begins and ends one alone N/10 times, and prints `after threads=T fds=F` (the tests compare the two).
// keychain-probe nofile --group G: lowers its descriptor limit to what it has open, then reads an item of G and
// observes G (`limited read: …`, `limited observation: …`), lifts the limit and does both again (`lifted …`).
// A KeychainError is one line `keychain-probe: error[CODE]: MESSAGE` on standard error, exit 4
// when the keyring is unavailable, else 1; a usage error is exit 2.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, let options = ProbeOptions(arguments.dropFirst()) else {
    fail("usage: keychain-probe write --service S --account A [--group G] [--repeats N] | list --group G", status: 2)
}
// Logs go to standard error only, warnings and up: standard output is what the tests read.
var logger = Logger(label: "keychain-probe")
logger.logLevel = .warning
let store = SecretServiceStore(configuration: .init(logger: logger))

do throws(KeychainError) {
    switch (command, options.group) {
    case ("write", _):
        guard let service = options.service, let account = options.account else { fail("write needs --service and --account", status: 2) }
        let key = KeychainKey(service: service, account: account, accessGroup: options.group)
        let value = FileHandle.standardInput.readDataToEndOfFile()
        for _ in 0..<options.repeats { try store.setData(value, for: key, label: "keychain-probe item") }
    case ("read", _):
        guard let service = options.service, let account = options.account else { fail("read needs --service and --account", status: 2) }
        let key = KeychainKey(service: service, account: account, accessGroup: options.group)
        for _ in 0..<10 { _ = try store.data(for: key) }  // what the first reads make once (the connection, the session)
        print("before rss=\(residentKiB() ?? -1)")
        for _ in 0..<options.repeats { _ = try store.data(for: key) }
        print("after rss=\(residentKiB() ?? -1)")
    case ("cycle", let group?):
        try cycleObservations(of: group, repeats: options.repeats)
    case ("nofile", let group?):
        descriptorLimit(group)
    case ("list", let group?):
        for item in try store.items(in: .group(group)) {
            print([item.key.service, item.key.account, item.label].map(\.escapedForTerminal).joined(separator: "  "))
        }
    default:
        fail("unknown command \(command.escapedForTerminal), or list without --group", status: 2)
    }
} catch {
    switch error {
    case .noSessionBus, .noProvider, .noSuchCollection, .locked, .timedOut:
        fail("error[\(error.code)]: \(error.description.escapedForTerminal)", status: 4)
    default:
        fail("error[\(error.code)]: \(error.description.escapedForTerminal)", status: 1)
    }
}

/// The options after the command: `--name value` pairs.
struct ProbeOptions {
    var service: String?
    var account: String?
    var group: AccessGroup?
    var repeats = 1

    init?(_ words: ArraySlice<String>) {
        var words = words
        while let name = words.popFirst() {
            guard let value = words.popFirst() else { return nil }
            switch name {
            case "--service": service = value
            case "--account": account = value
            case "--group": guard let group = try? AccessGroup(value) else { return nil }; self.group = group
            case "--repeats": guard let count = Int(value), count > 0 else { return nil }; repeats = count
            default: return nil
            }
        }
    }
}

/// This process's threads and open descriptors, as /proc counts them.
/// Observes `group` and seven groups beside it, then cancels and begins one observation at a time, `repeats` times.
func cycleObservations(of group: AccessGroup, repeats: Int) throws(KeychainError) {
    var groups: [AccessGroup] = [group]
    for index in 1..<8 { groups.append(try AccessGroup("\(group.rawValue).\(index)")) }
    // One observation begun and ended first: what the first one makes once (libsecret's connection) is then made.
    try store.observeChanges(in: .group(group)) { _ in }.cancel()
    print("before \(processResources())")
    var observations = try groups.map { group throws(KeychainError) in try store.observeChanges(in: .group(group)) { _ in } }
    print("during \(processResources())")
    for round in 0..<repeats {
        let index = round % groups.count
        observations[index].cancel()
        observations[index] = try store.observeChanges(in: .group(groups[index])) { _ in }
    }
    for observation in observations { observation.cancel() }
    observations.removeAll()
    // Alone, each observation starts the watcher and stops it again.
    for round in 0..<repeats / 10 { try store.observeChanges(in: .group(groups[round % groups.count])) { _ in }.cancel() }
    print("after \(processResources())")
}

/// Each keychain call that needs a descriptor, with none to be had and again once the limit is lifted.
func descriptorLimit(_ group: AccessGroup) {
    let key = KeychainKey(service: "nofile", account: "probe", accessGroup: group)
    func attempt(_ label: String) {
        do throws(KeychainError) {
            _ = try store.data(for: key)
            print("\(label) read: answered")
        } catch {
            print("\(label) read: \(error.code): \(error.description)")
        }
        do throws(KeychainError) {
            try store.observeChanges(in: .group(group)) { _ in }.cancel()
            print("\(label) observation: began")
        } catch {
            print("\(label) observation: \(error.code): \(error.description)")
        }
    }
    _ = try? store.data(for: key)  // the connection and its session, made while descriptors can be had
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    var lowered = limit
    // What is open now (less the listing's own) and four more: fewer than a call needs.
    lowered.rlim_cur = rlim_t(max(0, open - 1 + 4))
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered)
    attempt("limited")
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    attempt("lifted")
}

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("keychain-probe: \(message)\n".utf8))
    exit(status)
}
