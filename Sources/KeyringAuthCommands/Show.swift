import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SecretKeychain
import SystemSupport

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the user stored for this app: in --group G, --private, or (neither) the app's current scope.",
        usage: "keyring-auth show [--group <group> | --private] \(Usage.identity) [--claims] [--show-tokens] [--json] \(Usage.store)",
        discussion: """
            Exits 3 when nothing is stored there. Tokens are printed only with --show-tokens. --claims decodes \
            the stored ID token locally (the sign-in method, custom claims, times), as getIDTokenResult does.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Also print the ID and refresh tokens (secrets: anyone holding them is signed in).")
    var showTokens = false

    @Flag(help: "Also print the ID token's claims, decoded locally (not the token itself).")
    var claims = false

    func run() async throws {
        let store = storeOptions.makeStore()
        let options = try app.appOptions()
        let group: AccessGroup?
        if scope.isExplicit {
            group = try scope.accessGroup()
        } else {
            // What the app sees at launch: its saved group choice.
            let auth = try app.makeAuth(store: store, logger: storeOptions.logger)
            group = try auth.userAccessGroup.map { try AccessGroup($0) }
        }
        let user = try await reporting { try StoredUserItem.user(of: options, in: group, store: store) }
        guard let user else {
            if output.json {
                printJSON(["uid": NSNull(), "accessGroup": nullable(group?.rawValue)])
            }
            throw CLIFailure(
                .nothingStored,
                "Nothing stored for app \(options.appName) in \(scopeName(group)): no user is signed in there.")
        }
        let decoded = claims ? try await reporting { () throws(AuthError) in try AuthTokenResult(token: user.tokens.idToken) } : nil
        if output.json {
            var object = user.json(group: group, showingTokens: showTokens)
            if let decoded {
                object["signInProvider"] = decoded.signInProvider
                object["claims"] = jsonValue(decoded.claims)
            }
            printJSON(object)
        } else {
            user.printText(group: group, showingTokens: showTokens)
            if let decoded {
                print("sign-in provider: \(decoded.signInProvider.escapedForTerminal)")
                print("signed in: \(timestamp(decoded.authDate))")
                print("claims: \(jsonLine(jsonValue(decoded.claims)).escapedForTerminal)")
            }
        }
    }
}
