import Foundation
import KeyringAuth
import Synchronization

/// An identity backend in memory, standing in for Identity Toolkit in tests. Each process has its
/// own accounts; what crosses processes is what the keychain holds.
///
/// Identity providers are faked as the emulator fakes them: a credential's ID token (else its access
/// token) is the user's ID at the provider. A custom token is the uid itself.
package final class FakeBackend: AuthBackend {
    package let apiKey: String
    private struct Account {
        var uid: String
        var email: String?
        var password: String?
        var tenantID: String?
        /// Provider ID → the user's ID there.
        var identities: [String: String] = [:]
    }
    private struct State {
        var accounts: [String: Account] = [:]   // by uid
        var tokens: [String: String] = [:]      // idToken → uid
        var refreshTokens: [String: String] = [:]
        var counter = 0
        var calls: [String] = []
        var refreshedTokens: [String] = []
        var contexts: [AuthRequestContext] = []
    }
    private let state = Mutex(State())

    /// How long the ID tokens it issues last.
    package let tokenLifetime: TimeInterval

    package init(apiKey: String = "AIzaSharedKey", tokenLifetime: TimeInterval = 3600) {
        self.apiKey = apiKey
        self.tokenLifetime = tokenLifetime
    }

    /// The backend methods called so far, in order.
    package var calls: [String] { state.withLock { $0.calls } }

    /// The refresh token each `refresh` call so far presented, in order: calls with the same token
    /// refreshed the same generation of the user's tokens.
    package var refreshedTokens: [String] { state.withLock { $0.refreshedTokens } }

    /// The request context of each call so far, in order.
    package var contexts: [AuthRequestContext] { state.withLock { $0.contexts } }

    private func issue(for uid: String, _ state: inout State) -> AuthTokens {
        state.counter += 1
        let tokens = AuthTokens(
            idToken: "id-\(uid)-\(state.counter)", refreshToken: "refresh-\(uid)-\(state.counter)",
            expirationDate: Date().addingTimeInterval(tokenLifetime))
        state.tokens[tokens.idToken] = uid
        state.refreshTokens[tokens.refreshToken] = uid
        return tokens
    }

    private func record(_ call: String, _ context: AuthRequestContext, _ state: inout State) {
        state.calls.append(call)
        state.contexts.append(context)
    }

    package func signUpAnonymously(context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        state.withLock { state in
            record("signUpAnonymously", context, &state)
            state.counter += 1
            let uid = "anon-\(state.counter)"
            state.accounts[uid] = Account(uid: uid, tenantID: context.tenantID)
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state), isNewUser: true)
        }
    }

    package func signUp(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            record("signUp", context, &state)
            guard password.count >= 6 else { throw AuthError(.weakPassword, "WEAK_PASSWORD") }
            guard !state.accounts.values.contains(where: { $0.email == email }) else {
                throw AuthError(.emailAlreadyInUse, "EMAIL_EXISTS")
            }
            state.counter += 1
            let uid = "user-\(state.counter)"
            state.accounts[uid] = Account(uid: uid, email: email, password: password, tenantID: context.tenantID)
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state), isNewUser: true)
        }
    }

    package func signIn(email: String, password: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            record("signIn", context, &state)
            guard let account = state.accounts.values.first(where: { $0.email == email }) else {
                throw AuthError(.userNotFound, "EMAIL_NOT_FOUND")
            }
            guard account.password == password else { throw AuthError(.wrongPassword, "INVALID_PASSWORD") }
            return BackendSignIn(uid: account.uid, tokens: issue(for: account.uid, &state))
        }
    }

    package func signIn(
        with credential: OAuthCredential, linkingTo idToken: String?, creatingAccount: Bool, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            record(idToken == nil ? "signInWithIdp" : "linkWithIdp", context, &state)
            let provider = credential.provider
            let rawID = credential.idToken ?? credential.accessToken ?? ""
            let holder = state.accounts.values.first { $0.identities[provider] == rawID }?.uid
            let answer = IdentityProviderAnswer(providerID: provider, idToken: credential.idToken, accessToken: credential.accessToken)
            if let idToken {
                guard let uid = state.tokens[idToken], state.accounts[uid] != nil else {
                    throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN")
                }
                guard holder == nil || holder == uid else {
                    throw AuthError(.credentialAlreadyInUse, "FEDERATED_USER_ID_ALREADY_LINKED", updatedCredential: answer.credential)
                }
                state.accounts[uid]?.identities[provider] = rawID
                return BackendSignIn(uid: uid, tokens: issue(for: uid, &state), identityProvider: answer)
            }
            if let holder { return BackendSignIn(uid: holder, tokens: issue(for: holder, &state), identityProvider: answer) }
            guard creatingAccount else { throw AuthError(.userNotFound, "USER_NOT_FOUND") }
            state.counter += 1
            let uid = "idp-\(state.counter)"
            state.accounts[uid] = Account(uid: uid, tenantID: context.tenantID, identities: [provider: rawID])
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state), isNewUser: true, identityProvider: answer)
        }
    }

    package func signIn(customToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendSignIn {
        state.withLock { state in
            record("signInWithCustomToken", context, &state)
            let isNew = state.accounts[customToken] == nil
            if isNew { state.accounts[customToken] = Account(uid: customToken, tenantID: context.tenantID) }
            return BackendSignIn(uid: customToken, tokens: issue(for: customToken, &state), isNewUser: isNew)
        }
    }

    package func link(
        idToken: String, email: String, password: String, context: AuthRequestContext
    ) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            record("linkWithPassword", context, &state)
            guard let uid = state.tokens[idToken], state.accounts[uid] != nil else { throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN") }
            guard !state.accounts.values.contains(where: { $0.email == email && $0.uid != uid }) else {
                throw AuthError(.emailAlreadyInUse, "EMAIL_EXISTS")
            }
            state.accounts[uid]?.email = email
            state.accounts[uid]?.password = password
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state))
        }
    }

    package func lookUp(idToken: String, context: AuthRequestContext) async throws(AuthError) -> BackendAccount {
        try state.withLock { state throws(AuthError) in
            record("lookUp", context, &state)
            guard let uid = state.tokens[idToken], let account = state.accounts[uid] else {
                throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN")
            }
            var providers = account.password == nil ? [] : account.email.map { [ProviderUserInfo(providerID: "password", uid: $0, email: $0)] } ?? []
            providers += account.identities.sorted { $0.key < $1.key }.map { ProviderUserInfo(providerID: $0.key, uid: $0.value) }
            return BackendAccount(uid: uid, email: account.email, providers: providers, tenantID: account.tenantID)
        }
    }

    package func update(idToken: String, changes: AccountChanges, context: AuthRequestContext) async throws(AuthError) -> AuthTokens? {
        try state.withLock { state throws(AuthError) in
            record("update", context, &state)
            guard let uid = state.tokens[idToken], state.accounts[uid] != nil else { throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN") }
            for provider in changes.deletedProviders {
                if provider == "password" { state.accounts[uid]?.password = nil }
                state.accounts[uid]?.identities[provider] = nil
            }
            return nil
        }
    }

    package func delete(idToken: String, context: AuthRequestContext) async throws(AuthError) {
        try state.withLock { state throws(AuthError) in
            record("delete", context, &state)
            guard let uid = state.tokens[idToken] else { throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN") }
            state.accounts[uid] = nil
        }
    }

    package func refresh(refreshToken: String, context: AuthRequestContext) async throws(AuthError) -> AuthTokens {
        try state.withLock { state throws(AuthError) in
            record("refresh", context, &state)
            state.refreshedTokens.append(refreshToken)
            guard let uid = state.refreshTokens[refreshToken], state.accounts[uid] != nil else {
                throw AuthError(.userTokenExpired, "TOKEN_EXPIRED")
            }
            return issue(for: uid, &state)
        }
    }
}
