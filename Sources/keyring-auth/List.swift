import ArgumentParser
import Foundation
import KeyringAuth
import SecretKeychain

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every stored sign-in in the collection, private and shared; corrupt ones too.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let store = storeOptions.makeStore()
        let records = try await reporting { try StoredAuthRecord.all(in: store) }
        if output.json {
            printJSON(records.map(\.json))
            return
        }
        guard !records.isEmpty else {
            print("No stored sign-ins in the \(storeOptions.collection) collection.")
            return
        }
        printTable(
            ["SCOPE", "GROUP", "API KEY", "APP", "UID", "ANONYMOUS", "EMAIL", "TOKEN EXPIRES", "MODIFIED"],
            records.map(\.row))
    }
}

extension StoredAuthRecord {
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
                "CORRUPT: \(error.code.rawValue)", "-", "-", "-", timestamp(modified),
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
        }
        return object
    }
}
