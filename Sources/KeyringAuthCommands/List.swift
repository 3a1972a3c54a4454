import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every stored sign-in in the collection, private and shared; corrupt, oversized and unrecognized items too.",
        discussion: """
            Corrupt records are listed as CORRUPT, records over 1 MiB as OVERSIZED (not read), and items of \
            the keychain schema whose attributes form no key as UNRECOGNIZED with their attributes.
            """)

    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let store = storeOptions.makeStore()
        let inventory = try await reporting { try StoredUserItem.inventory(in: store) }
        if output.json {
            printJSON(inventory.records.map(\.json) + inventory.unrecognized.map(\.json))
            return
        }
        guard !inventory.records.isEmpty || !inventory.unrecognized.isEmpty else {
            print("No stored sign-ins in the \(storeOptions.collection) collection.")
            return
        }
        printTable(
            ["SCOPE", "GROUP", "API KEY", "APP", "UID", "ANONYMOUS", "EMAIL", "TOKEN EXPIRES", "MODIFIED"],
            inventory.records.map(\.row) + inventory.unrecognized.map(\.row))
    }
}

extension UnrecognizedKeychainItem {
    /// The attributes that say where it would belong, as `name=value` pairs; the schema name left out.
    private var attributeList: String {
        attributes.filter { $0.key != SecretServiceSchema.schemaAttribute }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// A row of `list`'s table (printTable escapes it): the scope and group as stored, the reason and
    /// the attributes in the UID column.
    var row: [String] {
        [
            attributes[SecretServiceSchema.scopeAttribute] ?? "-", attributes[SecretServiceSchema.accessGroupAttribute] ?? "-",
            attributes[SecretServiceSchema.serviceAttribute].map(shortened) ?? "-", "-",
            "UNRECOGNIZED: \(reason); \(attributeList)", "-", "-", "-", timestamp(modified),
        ]
    }

    var json: [String: Any] {
        [
            "unrecognized": true, "corrupt": true, "error": reason, "attributes": attributes, "item": identifier,
            "scope": nullable(attributes[SecretServiceSchema.scopeAttribute]),
            "accessGroup": nullable(attributes[SecretServiceSchema.accessGroupAttribute]),
            "service": nullable(attributes[SecretServiceSchema.serviceAttribute]),
            "account": nullable(attributes[SecretServiceSchema.accountAttribute]), "modified": timestamp(modified),
        ]
    }
}

extension StoredUserItem {
    private var scopeColumns: (scope: String, group: String, apiKey: String?, app: String?) {
        switch scope {
        case .private(let appName, let appID): ("private", "-", nil, "\(appName) (\(appID))")
        case .group(let group, let apiKey): ("group", group.rawValue, apiKey, nil)
        }
    }

    var row: [String] {
        let columns = scopeColumns
        switch user {
        case .success(let user):
            return [
                columns.scope, columns.group, shortened(columns.apiKey ?? user.apiKey), columns.app ?? user.appID, user.uid,
                user.isAnonymous ? "yes" : "no", user.email ?? "-", timestamp(user.tokens.expirationDate), timestamp(modified),
            ]
        case .failure(let error):
            return [
                columns.scope, columns.group, columns.apiKey.map(shortened) ?? "-", columns.app ?? "-",
                error.oversizedSize.map { "OVERSIZED: \($0) bytes, not read" } ?? "CORRUPT: \(error.code.name)",
                "-", "-", "-", timestamp(modified),
            ]
        }
    }

    var json: [String: Any] {
        let columns = scopeColumns
        var object: [String: Any] = [
            "scope": columns.scope, "accessGroup": columns.group == "-" ? NSNull() : columns.group,
            "service": key.service, "account": key.account, "modified": timestamp(modified),
        ]
        switch user {
        case .success(let user):
            object["corrupt"] = false
            object["apiKey"] = shortened(columns.apiKey ?? user.apiKey)
            object["app"] = columns.app ?? user.appID
            object["uid"] = user.uid
            object["isAnonymous"] = user.isAnonymous
            object["email"] = nullable(user.email)
            object["tokenExpiration"] = timestamp(user.tokens.expirationDate)
        case .failure(let error):
            object["corrupt"] = true
            object["error"] = error.message
            if let size = error.oversizedSize { object["oversized"] = size }
        }
        object["unrecognized"] = false
        return object
    }
}

extension AuthError {
    /// The item's size when this is an item over the size limit.
    fileprivate var oversizedSize: Int? {
        if case .oversizedItem(_, let size, _) = keychainError { return size }
        return nil
    }
}
