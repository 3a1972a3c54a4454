import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SystemSupport

struct UpdatePhone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-phone",
        abstract: "Change the phone number of the app's signed-in user (the new number's code, sent by SMS once its page in the browser is done).",
        usage: """
            keyring-auth update-phone --phone <number> [--port <port>] [--browser-timeout <seconds>] [--no-browser] \
            [--group <group> | --private] \(Usage.identity) \(Usage.backend) [--json] \(Usage.store)
            """,
        discussion: """
            Firebase's updatePhoneNumber: the user of the app's current scope (as for link) gets the new number, which replaces \
            any it had, in the stored item, for every app of the group. The number's verification page opens in the browser (its \
            address on standard error, to open by hand with --no-browser); the code is read at a prompt on a terminal, else from \
            standard input. A number another account has is credentialAlreadyInUse (exit 5), and nothing stored changes. Exits 3 \
            when nobody is signed in there.
            """)

    @OptionGroup(title: "App identity") var app: IdentityOptions
    @OptionGroup(title: "Identity backend") var backend: BackendOptions
    @OptionGroup var scope: ScopeOptions
    @OptionGroup(title: "Store") var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "The verification page") var page: BrowserPageOptions

    @Option(help: ArgumentHelp("The new number, E.164 (+15555550100).", valueName: "number"))
    var phone: String

    func run() async throws {
        let (auth, user, place) = try currentUserForAccountChange(app: app, backend: backend, scope: scope, storeOptions: storeOptions)
        // A user holds its Auth weakly: the Auth must live until the change is saved.
        defer { withExtendedLifetime(auth) {} }
        let (page, phone) = (page, phone)
        try await reporting { () async throws in try await user.updatePhoneNumber(try await page.phoneCredential(phone, auth: auth)) }
        if output.json {
            printJSON(["uid": user.uid, "phoneNumber": nullable(user.phoneNumber), "providers": user.providerData.map(\.providerID)])
        } else {
            printLine("Changed the phone number of \(user.uid) in \(place) to \(user.phoneNumber ?? phone).")
        }
    }
}
