import Foundation

extension EmulatorService {
    /// `accounts:createAuthUri`, as firebase-tools answers it: whether an address belongs to an account (as its
    /// address, or as an identity provider's), and how that account signs in (`allProviders`, `signinMethods`:
    /// `password`, `emailLink`, or the provider's ID). With improved email privacy on, only `sessionId` is told.
    /// With a `providerId`, it begins that provider's sign-in as Identity Platform does (``beginIdpSignIn``;
    /// firebase-tools answers 501); `host` is the request's `Host`, for the `authUri`.
    ///
    /// - Throws: `PROJECT_DISABLED` for a tenant with `disableAuth`; `MISSING_IDENTIFIER`, `MISSING_CONTINUE_URI`,
    ///   `INVALID_IDENTIFIER` (not an email address), `INVALID_CONTINUE_URI` (not an absolute URI).
    func createAuthUri(_ fields: RequestFields, tenant: String?, host: String?) throws(EmulatorFailure) -> [String: Any] {
        let sessionID = try fields.string("sessionId").flatMap { $0.isEmpty ? nil : $0 } ?? EmulatorAccount.randomID(length: 27)
        if let providerId = try fields.string("providerId"), !providerId.isEmpty {
            return try beginIdpSignIn(fields, providerId: providerId, sessionID: sessionID, tenant: tenant, host: host)
        }
        guard let identifier = try fields.string("identifier"), !identifier.isEmpty else { throw EmulatorFailure("MISSING_IDENTIFIER") }
        guard let continueURI = try fields.string("continueUri"), !continueURI.isEmpty else {
            throw EmulatorFailure("MISSING_CONTINUE_URI")
        }
        let email: String
        do throws(EmulatorFailure) { email = try Self.validEmail(identifier) } catch { throw EmulatorFailure("INVALID_IDENTIFIER") }
        guard let uri = URLComponents(string: continueURI), uri.scheme?.isEmpty == false else {
            throw EmulatorFailure("INVALID_CONTINUE_URI")
        }
        return state.withLock { state in
            var reply: [String: Any] = ["kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": sessionID]
            guard !state.settings.emailEnumerationProtection else { return reply }
            let matches = Self.accounts(withEmailOrProviderEmail: email, tenant: tenant, in: state)
            // With duplicate addresses allowed, as firebase-tools answers: registered when an account found has an
            // address of its own, and only password methods (that account's, then the first found's).
            let oneAccountPerEmail = !state.settings.allowsDuplicateEmails
            let account = oneAccountPerEmail ? matches.first : matches.first { $0.email != nil }
            var (allProviders, signInMethods) = ([String](), [String]())
            if let account, let first = matches.first {
                if account.hasPasswordMethod {
                    allProviders.append("password")
                    let methods = oneAccountPerEmail ? account : first
                    if methods.password != nil || methods.importedPasswordHash != nil { signInMethods.append("password") }
                    if methods.emailLinkSignIn { signInMethods.append("emailLink") }
                }
                for identity in account.identities where oneAccountPerEmail {
                    allProviders.append(identity.providerId)
                    signInMethods.append(identity.providerId)
                }
            }
            reply["registered"] = account != nil
            reply["allProviders"] = allProviders
            reply["signinMethods"] = signInMethods
            return reply
        }
    }

    /// The accounts of `tenant` whose address is `email`, then those with an identity provider's address `email`.
    static func accounts(withEmailOrProviderEmail email: String, tenant: String?, in state: State) -> [EmulatorAccount] {
        let byEmail = state.uidsByEmail[emailKey(email, tenant)].flatMap { state.accounts[$0] }
        let byProvider = state.accounts.values
            .filter { account in
                account.tenantId == tenant && account.localId != byEmail?.localId
                    && account.identities.contains { $0.email?.lowercased() == email }
            }
            .sorted { $0.createdAt < $1.createdAt }
        return (byEmail.map { [$0] } ?? []) + byProvider
    }
}
