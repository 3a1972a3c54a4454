import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Testing

@testable import KeyringAuth

extension KeyringTests.Broker {
    /// A project enforcing App Check, through the broker: a sandboxed app's calls carry the token it obtained itself
    /// (`appCheckToken`), for those calls only: the same app's next call without one, and another app's, are refused
    /// with the message that names App Check, and nothing is stored for them.
    @Test func theBrokerSendsEachCallsOwnAppCheckTokenAndKeepsNone() async throws {
        let secret = "7C0FFEE0-1234-4ABC-8DEF-0123456789AB"
        let broker = try await BrokerFixture.start(appCheck: .init(enforcesOnAuth: true, debugTokens: [secret]))
        // The app's own debug exchange, as its App Check SDK makes it.
        let exchange = AppCheckExchange(
            base: URL(string: "http://\(broker.address)/firebaseappcheck.googleapis.com/v1/")!, apiKey: broker.app["apiKey"]!,
            projectID: broker.app["projectID"]!, appID: broker.app["appID"]!, timeout: .seconds(10), transport: CurlTransport())
        let token = try await exchange.exchange(debugToken: secret, limitedUse: false)

        let notes = try await BrokerDriver(broker, as: "com.example.Notes", app: broker.app.merging(["appCheckToken": token.token]) { $1 })
        let user = try await notes.dictionary("SignInAnonymously")
        #expect(!(user["uid"] as? String ?? "").isEmpty, "\(user)")
        let signUps = broker.emulator.receivedRequests.filter { $0.operation == "accounts:signUp" }
        #expect(signUps.last?.appCheckAppID == broker.app["appID"], "the call's token went with its request")
        // Signed out (no request), so that the next anonymous sign-in asks Firebase again, as Firebase's does.
        try await notes.succeed("SignOut")
        #expect(await notes.finish() == 0)

        for app in ["com.example.Notes", "com.example.Other"] {
            let accounts = broker.emulator.accounts.count
            let client = try await BrokerDriver(broker, as: app)
            let refused = try await client.call("SignInAnonymously")
            #expect("\(refused)".contains("Firebase App Check token is invalid"), "\(app): \(refused)")
            #expect(broker.emulator.accounts.count == accounts, "no account made")
            #expect(await client.finish() == 0)
        }

        let malformed = try await BrokerDriver(broker, as: "com.example.Notes", app: broker.app.merging(["appCheckToken": "a b"]) { $1 })
        let answer = try await malformed.call("GetUser")
        #expect(answer["error"] as? String == "InvalidArgument" && (answer["message"] as? String ?? "").contains("appCheckToken"), "\(answer)")
        #expect(await malformed.finish() == 0)
    }

    /// A host app may name a debug secret instead (`appCheckDebugToken`): the broker exchanges it once, keeps the token
    /// in the keyring for the app, and sends it with the app's calls; a sandboxed app may not.
    @Test func aHostAppsDebugSecretIsExchangedByTheBrokerOnceAndASandboxedAppsIsRefused() async throws {
        let secret = "7C0FFEE0-1234-4ABC-8DEF-0123456789AC"
        let broker = try await BrokerFixture.start(appCheck: .init(enforcesOnAuth: true, debugTokens: [secret]))
        let app = broker.app.merging(["appCheckDebugToken": secret, "appID": "1:42:linux:host\(UUID().uuidString.prefix(6))"]) { $1 }
        let host = try await BrokerDriver(broker, app: app)
        let user = try await host.dictionary("SignInAnonymously")
        #expect(!(user["uid"] as? String ?? "").isEmpty, "\(user)")
        try await host.succeed("SignOut")
        _ = try await host.dictionary("SignInAnonymously")
        #expect(broker.emulator.appCheckExchanges.filter { $0.appID == app["appID"] }.count == 1, "\(broker.emulator.appCheckExchanges)")
        #expect(await host.finish() == 0)

        let sandboxed = try await BrokerDriver(broker, as: "com.example.Notes", app: app)
        let refused = try await sandboxed.call("GetUser")
        #expect(refused["error"] as? String == "AccessDenied" && "\(refused)".contains("appCheckToken"), "\(refused)")
        #expect(!"\(refused)".contains(secret))
        #expect(await sandboxed.finish() == 0)
    }
}
