import ArgumentParser
import Foundation
import Logging
import SecretKeychain

@main
struct SecretKeychainTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret-keychain",
        abstract: "Store, read, list and remove KeyringAuth keychain items in the Secret Service.",
        discussion: """
            Exit codes: 0 success, 1 failure, 2 a key, group or value the store refuses, \
            3 nothing stored for that key, 4 keyring unavailable, locked or not answering, 64 usage error.
            """,
        subcommands: [Demo.self, Write.self, Read.self, List.self, Remove.self]
    )
}

/// Options every subcommand takes: which store, which collection, how long to wait.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store: secret-service or memory.")
    var store: StoreKind = .secretService

    @Option(help: "The collection: default, session, or a D-Bus object path.")
    var collection: String = "default"

    @Option(help: "The longest any one D-Bus call may take, in seconds.")
    var timeout: Double = 5

    @Flag(help: "Log what the store does to standard error.")
    var verbose = false

    enum StoreKind: String, ExpressibleByArgument {
        case secretService = "secret-service"
        case memory
    }

    func validate() throws {
        guard SecretServiceStore.Collection(argument: collection) != nil else {
            let reason = SecretServiceStore.Collection.objectPathViolation(in: collection) ?? "unknown"
            throw ValidationError("--collection takes default, session, or a D-Bus object path; \(collection.debugDescription) is not one: \(reason)")
        }
        guard timeout >= 0.001, timeout.isFinite else { throw ValidationError("--timeout takes a number of seconds, at least 0.001") }
    }

    func makeStore() -> any KeychainStore {
        // Logs go to standard error only: standard output carries secrets for `read`.
        LoggingSystem.bootstrap { [verbose] label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
        switch store {
        case .memory:
            return InMemoryStore()
        case .secretService:
            return SecretServiceStore(configuration: .init(
                collection: SecretServiceStore.Collection(argument: collection)!,
                timeout: .milliseconds(Int(timeout * 1000))))
        }
    }
}

/// The key a subcommand works on.
struct KeyOptions: ParsableArguments {
    @Option(help: "The item's service.")
    var service: String

    @Option(help: "The item's account.")
    var account: String

    @Option(help: "The access group to share the item in; leave out for the private scope.")
    var group: String?

    func validate() throws {
        if let group, let violation = AccessGroup.violation(in: group) {
            throw ValidationError("\(group.debugDescription) is not a valid access group: \(violation)")
        }
    }

    var key: KeychainKey {
        KeychainKey(service: service, account: account, accessGroup: group.map { try! AccessGroup($0) })
    }
}

extension AsyncParsableCommand {
    /// Runs `body`, turning a ``KeychainError`` into one line on standard error and an exit code.
    func reportingErrors(_ body: () async throws(KeychainError) -> Void) async throws {
        do {
            try await body()
        } catch {
            FileHandle.standardError.write(Data("secret-keychain: error[\(error.code)]: \(error.description.escapedForTerminal)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}

extension KeychainError {
    var exitCode: Int32 {
        switch self {
        case .invalidAccessGroup, .invalidKey, .payloadTooLarge, .invalidCollectionPath: return 2
        case .noSessionBus, .noProvider, .noSuchCollection, .locked, .timedOut: return 4
        case .corruptItem, .oversizedItem, .underlying: return 1
        }
    }
}
