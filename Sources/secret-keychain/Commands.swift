import ArgumentParser
import Foundation
import SecretKeychain

struct Write: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store the bytes read from standard input under a key, replacing what was there.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var keyOptions: KeyOptions

    @Option(help: "The label keyring managers show.")
    var label: String?

    @Option(help: "Store the value this many times (for concurrency tests).")
    var repeats: Int = 1

    func run() async throws {
        let value = FileHandle.standardInput.readDataToEndOfFile()
        let store = options.makeStore()
        let key = keyOptions.key
        try await reportingErrors { () async throws(KeychainError) in
            for _ in 0..<max(repeats, 1) {
                try await store.setData(value, for: key, label: label ?? "KeyringAuth item \(key)")
            }
        }
    }
}

struct Read: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the secret stored under a key to standard output (exit 3 when none is).")

    @OptionGroup var options: StoreOptions
    @OptionGroup var keyOptions: KeyOptions

    @Option(help: "Read the value this many times (for instruction counts), printing it once.")
    var repeats: Int = 1

    func run() async throws {
        let store = options.makeStore()
        var found: Data?
        try await reportingErrors { () async throws(KeychainError) in
            for _ in 0..<max(repeats, 1) {
                found = try await store.data(for: keyOptions.key)
            }
        }
        guard let found else {
            FileHandle.standardError.write(Data("secret-keychain: nothing is stored for \(keyOptions.key)\n".utf8))
            throw ExitCode(3)
        }
        FileHandle.standardOutput.write(found)
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the stored items (never their secrets): all, the private scope, or one group.")

    @OptionGroup var options: StoreOptions

    @Option(help: "List only this access group.")
    var group: String?

    @Flag(help: "List only items stored with no access group.")
    var ungrouped = false

    @Flag(help: "Print JSON lines instead of a table.")
    var json = false

    func validate() throws {
        if group != nil && ungrouped { throw ValidationError("--group and --ungrouped exclude each other") }
        if let group, let violation = AccessGroup.violation(in: group) {
            throw ValidationError("\(group.debugDescription) is not a valid access group: \(violation)")
        }
    }

    func run() async throws {
        let store = options.makeStore()
        let scope: KeychainScope = ungrouped ? .ungrouped : group.map { .group(try! AccessGroup($0)) } ?? .all
        try await reportingErrors { () async throws(KeychainError) in
            let items = try await store.items(in: scope)
            print(json ? jsonLines(items) : table(items), terminator: "")
        }
    }
}

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove the item stored under a key (exit 3 when none is).")

    @OptionGroup var options: StoreOptions
    @OptionGroup var keyOptions: KeyOptions

    func run() async throws {
        let store = options.makeStore()
        var removed = false
        try await reportingErrors { () async throws(KeychainError) in
            removed = try await store.removeData(for: keyOptions.key)
        }
        if !removed { throw ExitCode(3) }
    }
}

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store, read, list and remove an item in a shared group and in the private scope.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = options.makeStore()
        let group = try AccessGroup("TEAMID.com.example.group1")
        let shared = KeychainKey(service: "demo-api-key", account: "firebase_auth_firebase_user", accessGroup: group)
        let unshared = KeychainKey(service: "demo-api-key", account: "firebase_auth_firebase_user")
        try await reportingErrors { () async throws(KeychainError) in
            print("Storing a value in group \(group) and another in the private scope, same service and account.")
            try await store.setData(Data("shared value".utf8), for: shared, label: "KeyringAuth demo (shared)")
            try await store.setData(Data("private value".utf8), for: unshared, label: "KeyringAuth demo (private)")
            let sharedRead = try await store.data(for: shared).map { String(decoding: $0, as: UTF8.self) }
            let privateRead = try await store.data(for: unshared).map { String(decoding: $0, as: UTF8.self) }
            print("Read back: group → \(sharedRead ?? "nothing"), private → \(privateRead ?? "nothing")")
            print("Items now stored:")
            print(table(try await store.items(in: .all)), terminator: "")
            let removed = try await store.removeAll(in: group)
            try await store.removeData(for: unshared)
            print("Removed \(removed) item(s) from group \(group) and the private item.")
            guard sharedRead == "shared value", privateRead == "private value",
                try await store.items(in: .all).isEmpty
            else {
                print("FAILED: the values read back or the final listing were not as stored.")
                throw KeychainError.underlying(domain: "demo", code: 1, message: "the demo did not behave as expected")
            }
            print("OK: the two scopes stayed apart and everything was cleaned up.")
        }
    }
}

private func table(_ items: [KeychainItemInfo]) -> String {
    guard !items.isEmpty else { return "(no items)\n" }
    // Stored values are untrusted: escaped, so that an item cannot steer the terminal.
    let rows = [["SCOPE", "SERVICE", "ACCOUNT", "SIZE", "MODIFIED", "LABEL"]] + items.map { item in
        [item.key.accessGroup.map { "group \($0)" } ?? "private", item.key.service, item.key.account,
         "\(item.size)", item.modified.formatted(.iso8601), item.label].map(\.escapedForTerminal)
    }
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
            .trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n") + "\n"
}

private func jsonLines(_ items: [KeychainItemInfo]) -> String {
    struct Line: Encodable {
        var service, account, label: String
        var accessGroup: String?
        var size: Int
        var created, modified: Date
    }
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = .sortedKeys
    return items.map { item in
        let line = Line(
            service: item.key.service, account: item.key.account, label: item.label,
            accessGroup: item.key.accessGroup?.rawValue, size: item.size, created: item.created, modified: item.modified)
        return String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self) + "\n"
    }.joined()
}
