import Foundation
import SystemSupport

// The emulator's identity provider page, where `createAuthUri`'s `authUri` leads: the provider's accounts as links,
// a form to make one, and a link to decline, which a browser without JavaScript completes. Each sends the browser
// back to the sign-in's `continueUri` (never to an address given elsewhere) with a one-time `code` and the `state`,
// or with `error=access_denied`, as a provider's authorization endpoint answers.
extension EmulatorService {
    /// Where the page's links and form send the person's choice.
    static let idpAnswerPath = "/emulator/auth/idp/answer"
    /// The page lists at most this many of the provider's accounts.
    static let maximumListedIdpAccounts = 100

    /// `GET /emulator/auth/idp?providerId=…&redirect_uri=…&state=…`: the page of a sign-in not yet answered,
    /// whose `redirect_uri` and `providerId` are the ones it was begun with.
    func idpPage(_ query: [String: String]) -> EmulatorResponse {
        guard let flowState = query["state"], !flowState.isEmpty else {
            return Self.idpRefusal("This address has no state. Open the authUri that accounts:createAuthUri answered.")
        }
        let found = state.withLock { state -> (PendingIdpSignIn, [EmulatorAccount.ProviderIdentity])? in
            Self.dropExpiredIdpSignIns(from: &state, now: clock().seconds)
            guard let signIn = state.idpSignIns.first(where: { $0.state == flowState }) else { return nil }
            let identities = state.accounts.values
                .filter { $0.tenantId == signIn.tenantId }
                .sorted { $0.createdAt < $1.createdAt }
                .compactMap { account in account.identities.first { $0.providerId == signIn.providerId } }
            return (signIn, identities)
        }
        guard let (signIn, identities) = found else { return Self.idpRefusal(Self.notPending) }
        guard signIn.answer == nil else { return Self.idpRefusal(Self.alreadyAnswered) }
        guard query["redirect_uri"] == signIn.continueUri, query["providerId"] == signIn.providerId else {
            return Self.idpRefusal(
                "This page's redirect_uri or providerId is not the one this sign-in was begun with. The page sends the browser "
                    + "back only to the continueUri given to accounts:createAuthUri: open the authUri it answered, unchanged.")
        }
        return .html(Self.idpPageHTML(signIn, identities))
    }

    /// `GET /emulator/auth/idp/answer?state=…` with `rawId` (an account listed), `email` and `displayName` (a new
    /// one, its raw ID made here) or `error=access_denied`: answers the sign-in once and sends the browser back.
    func idpAnswer(_ query: [String: String]) -> EmulatorResponse {
        guard let flowState = query["state"], !flowState.isEmpty else {
            return Self.idpRefusal("This answer has no state. Open the authUri that accounts:createAuthUri answered.")
        }
        let declined = query["error"] == "access_denied"
        var newUser: PendingIdpSignIn.ChosenUser?
        if !declined, query["rawId"] == nil {
            guard let given = query["email"], let email = try? Self.validEmail(given.trimmingCharacters(in: .whitespaces)) else {
                return Self.idpRefusal("A new account needs an email address, such as ada@example.com. Go back and give one.")
            }
            let displayName = query["displayName"].map { String($0.trimmingCharacters(in: .whitespaces).prefix(256)) }
            newUser = PendingIdpSignIn.ChosenUser(rawId: Self.randomRawID(), email: email, displayName: displayName?.isEmpty == false ? displayName : nil)
        }
        return state.withLock { state -> EmulatorResponse in
            Self.dropExpiredIdpSignIns(from: &state, now: clock().seconds)
            guard let index = state.idpSignIns.firstIndex(where: { $0.state == flowState }) else { return Self.idpRefusal(Self.notPending) }
            let signIn = state.idpSignIns[index]
            guard signIn.answer == nil else { return Self.idpRefusal(Self.alreadyAnswered) }
            if declined {
                state.idpSignIns[index].answer = .declined
                return .redirect(to: Self.returnAddress(signIn.continueUri, [
                    ("error", "access_denied"), ("error_description", "The user declined to sign in at the emulator's page."),
                    ("state", signIn.state),
                ]))
            }
            let user: PendingIdpSignIn.ChosenUser
            if let newUser {
                user = newUser
            } else {
                let rawId = query["rawId"] ?? ""
                guard let uid = state.uidsByIdentity[Self.identityKey(signIn.providerId, rawId, signIn.tenantId)],
                    let identity = state.accounts[uid]?.identities.first(where: { $0.providerId == signIn.providerId && $0.rawId == rawId })
                else { return Self.idpRefusal("No \(signIn.providerId) account has this ID any more. Go back and choose another.") }
                user = PendingIdpSignIn.ChosenUser(
                    rawId: rawId, email: identity.email, displayName: identity.displayName, photoUrl: identity.photoUrl,
                    screenName: identity.screenName)
            }
            let code = EmulatorAccount.randomID(length: 40)
            state.idpSignIns[index].answer = .chose(code: code, user: user)
            return .redirect(to: Self.returnAddress(signIn.continueUri, [("code", code), ("state", signIn.state)]))
        }
    }

    private static let notPending = "This sign-in is not pending: it was finished, expired after \(idpSignInLifetime / 60) minutes, "
        + "or was not begun on this emulator (it keeps the latest \(maximumPendingIdpSignIns)). Start it again from the app."
    private static let alreadyAnswered = "This sign-in was answered already. Start it again from the app to choose again."

    /// `continueUri` with `parameters` added to its query.
    private static func returnAddress(_ continueUri: String, _ parameters: [(String, String)]) -> String {
        let separator = !continueUri.contains("?") ? "?" : (continueUri.hasSuffix("?") || continueUri.hasSuffix("&") ? "" : "&")
        return continueUri + separator + queryString(parameters)
    }

    /// A provider's raw user ID as firebase-tools' widget makes one: 40 digits.
    private static func randomRawID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<40).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    private static func idpRefusal(_ message: String) -> EmulatorResponse {
        .html(page(title: "Sign-in not possible", body: "<p>\(escaped(message))</p>"), status: 400)
    }

    private static func idpPageHTML(_ signIn: PendingIdpSignIn, _ identities: [EmulatorAccount.ProviderIdentity]) -> String {
        let provider = escaped(signIn.providerId)
        let state = escaped(queryString([("state", signIn.state)]))
        var body = """
            <p>The KeyringAuth emulator stands in for <b>\(provider)</b>. Choose an account, make one, or decline; \
            the browser then returns to <code>\(escaped(signIn.continueUri))</code>.</p>
            <h2>Accounts</h2>

            """
        if identities.isEmpty {
            body += "<p>No \(provider) account in the emulator yet.</p>\n"
        } else {
            body += "<ul>\n"
            for identity in identities.prefix(maximumListedIdpAccounts) {
                let href = escaped(idpAnswerPath + "?" + queryString([("state", signIn.state), ("rawId", identity.rawId)]))
                let name = escaped(identity.displayName ?? "(no display name)")
                let email = identity.email.map { " &lt;\(escaped($0))&gt;" } ?? ""
                body += "<li><a class=\"account\" href=\"\(href)\">\(name)\(email)</a></li>\n"
            }
            body += "</ul>\n"
            if identities.count > maximumListedIdpAccounts {
                body += "<p>And \(identities.count - maximumListedIdpAccounts) more, not listed.</p>\n"
            }
        }
        body += """
            <h2>New account</h2>
            <form class="new-account" method="get" action="\(idpAnswerPath)">
            <input type="hidden" name="state" value="\(escaped(signIn.state))">
            <p><label>Email <input type="email" name="email" required></label></p>
            <p><label>Display name <input type="text" name="displayName"></label></p>
            <p><button type="submit">Sign in as a new \(provider) account</button></p>
            </form>
            <p><a class="decline" href="\(idpAnswerPath)?\(state)&amp;error=access_denied">Decline</a></p>
            """
        return page(title: "Sign in with \(provider)", body: body)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) · KeyringAuth emulator</title>
        <style>body { font-family: sans-serif; max-width: 40em; margin: 2em auto; padding: 0 1em; line-height: 1.5 }</style>
        </head>
        <body>
        <h1>\(title)</h1>
        \(body)
        </body>
        </html>

        """
    }

    /// `text` for HTML text and attribute values.
    static func escaped(_ text: String) -> String { HTML.escaped(text) }
}
