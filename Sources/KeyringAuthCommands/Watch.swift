import ArgumentParser
import CommandLineSupport
import Dispatch
import Foundation
import KeyringAuth
import SecretKeychain
import Synchronization
import SystemSupport

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a line each time the user an app in --group G sees changes, until interrupted (Ctrl-C).",
        usage: "keyring-auth watch --group <group> \(Usage.identity) [--json] \(Usage.store)",
        discussion: """
            The first line (event `now`) is what the group holds when watching starts; then one line per change: \
            signed-in, signed-out, user-changed, token-refreshed, profile-changed, or unreadable (the item cannot be \
            read; apps keep their user). Follows the keyring's signals: nothing is polled. Tokens are never printed. \
            Exits 0 on SIGINT or SIGTERM, and 4 with one line on standard error when the session bus goes away.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @Option(help: "The access group to watch, for example TEAMID.com.example.group1.")
    var group: String
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try validatedAccessGroup(group)
    }

    func run() async throws {
        let options = try app.appOptions()
        let group = try validatedAccessGroup(group)
        let store = storeOptions.makeStore()
        let printer = WatchPrinter(options: options, group: group, store: store, json: output.json)
        let queue = DispatchQueue(label: "keyring-auth.watch")
        let key = StoredUserItem.key(of: options, in: group)
        // Caught from before the first line: a script may interrupt as soon as it sees it.
        // The stream ends at an interrupt, or yields why the observation ended by itself.
        let (ends, end) = AsyncStream<KeychainError>.makeStream()
        let interrupts = try Interrupts { end.finish() }
        let observation = try await reporting { try await store.refreshOnChanges(to: key, on: queue) { printer.refresh() } }
        observation.whenEnded { reason in end.yield(reason) }
        // The first line is printed once changes are followed: a script may act as soon as it sees it.
        await withCheckedContinuation { continuation in
            queue.async {
                printer.refresh()
                continuation.resume()
            }
        }
        var ended: KeychainError?
        for await reason in ends {
            ended = reason
            break
        }
        observation.cancel()
        withExtendedLifetime(interrupts) {}
        // The keyring can no longer be followed (the session bus went away): one line, exit 4.
        if let ended { throw CLIFailure(ended) }
    }
}

/// Reads the group's user after each change and prints a line when what an app sees differs.
/// Runs on one serial queue.
private final class WatchPrinter: Sendable {
    private let options: AuthAppOptions
    private let group: AccessGroup
    private let store: any KeychainStore
    private let json: Bool
    /// What was printed last: `nil` before the first line, `.some(nil)` for no user.
    private let last = Mutex<StoredUserSummary??>(nil)

    init(options: AuthAppOptions, group: AccessGroup, store: any KeychainStore, json: Bool) {
        self.options = options
        self.group = group
        self.store = store
        self.json = json
    }

    func refresh() {
        let read = Result { () throws(AuthError) in try StoredUserItem.user(of: options, in: group, store: store) }
        last.withLock { last in
            switch read {
            case .failure(let error):
                print(event: "unreadable", user: nil, error: error.description)
            case .success(let user):
                guard let event = Self.event(from: last, to: user) else { return }
                last = .some(user)
                print(event: event, user: user, error: nil)
            }
        }
    }

    /// The event that takes an app from `old` to `new`, or `nil` when it sees no difference.
    private static func event(from old: StoredUserSummary??, to new: StoredUserSummary?) -> String? {
        guard case .some(let old) = old else { return "now" }
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, _?): return "signed-in"
        case (_?, nil): return "signed-out"
        case (let old?, let new?):
            if old.uid != new.uid { return "user-changed" }
            if old.tokens != new.tokens { return "token-refreshed" }
            return old == new ? nil : "profile-changed"
        }
    }

    private func print(event: String, user: StoredUserSummary?, error: String?) {
        let time = timestamp(Date())
        if json {
            var object: [String: Any] = [
                "time": time, "event": event, "accessGroup": group.rawValue,
                "user": user.map { $0.json(group: group, showingTokens: false) as Any } ?? NSNull(),
            ]
            if let error { object["error"] = error }
            printNow(jsonLine(object))
            return
        }
        // Stored values are escaped: an item anyone in the session can write must not steer the terminal.
        var line = "\(time) \(event)"
        if let error {
            line += " \(error.escapedForTerminal)"
        } else if let user {
            line += " uid=\(user.uid.escapedForTerminal) anonymous=\(user.isAnonymous ? "yes" : "no")"
            if let email = user.email { line += " email=\(email.escapedForTerminal)" }
            line += " token-expires=\(timestamp(user.tokens.expirationDate))"
        } else {
            line += " no user"
        }
        printNow(line)
    }
}
