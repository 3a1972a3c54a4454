import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain

struct SignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-out",
        abstract: "Sign out everywhere: --group G signs out every app of G; --private only this app's private user.",
        usage: "keyring-auth sign-out (--group <group> | --private) \(Usage.identity) [--json] \(Usage.store)",
        discussion: "Deletes the stored user item; exits 3 when nothing was stored there.")

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard scope.isExplicit else { throw ValidationError("Say where to sign out: --group G or --private.") }
    }

    func run() async throws {
        let options = try app.appOptions()
        let group = try scope.accessGroup()
        let store = storeOptions.makeStore()
        let key = StoredUserItem.key(of: options, in: group)
        let removed = try await reporting { try await store.removeData(for: key) }
        let place = group.map { "group \($0)" } ?? "the private scope of app \(options.appName)"
        guard removed else {
            if output.json { printJSON(["signedOut": false, "accessGroup": nullable(group?.rawValue)]) }
            throw CLIFailure(.nothingStored, "Nothing stored in \(place): no user was signed in there.")
        }
        if output.json {
            printJSON(["signedOut": true, "accessGroup": nullable(group?.rawValue)])
        } else {
            printLine(group == nil ? "Signed out of \(place)." : "Signed out of \(place): every app of the group is signed out.")
        }
    }
}
