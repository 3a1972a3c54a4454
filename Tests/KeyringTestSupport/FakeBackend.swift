import Foundation
import KeyringAuth
import Synchronization

/// An identity backend in memory, standing in for Identity Toolkit in tests. Each process has its
/// own accounts; what crosses processes is what the keychain holds.
public final class FakeBackend: AuthBackend {
    public let apiKey: String
    private struct Account {
        var uid: String
        var email: String?
        var password: String?
        var tenantID: String?
    }
    private struct State {
        var accounts: [String: Account] = [:]   // by uid
        var tokens: [String: String] = [:]      // idToken → uid
        var refreshTokens: [String: String] = [:]
        var counter = 0
        var calls: [String] = []
    }
    private let state = Mutex(State())

    public init(apiKey: String = "AIzaSharedKey") { self.apiKey = apiKey }

    /// The backend methods called so far, in order.
    public var calls: [String] { state.withLock { $0.calls } }

    private func issue(for uid: String, _ state: inout State) -> AuthTokens {
        state.counter += 1
        let tokens = AuthTokens(
            idToken: "id-\(uid)-\(state.counter)", refreshToken: "refresh-\(uid)-\(state.counter)",
            expirationDate: Date().addingTimeInterval(3600))
        state.tokens[tokens.idToken] = uid
        state.refreshTokens[tokens.refreshToken] = uid
        return tokens
    }

    public func signUpAnonymously(tenantID: String?) async throws(AuthError) -> BackendSignIn {
        state.withLock { state in
            state.calls.append("signUpAnonymously")
            state.counter += 1
            let uid = "anon-\(state.counter)"
            state.accounts[uid] = Account(uid: uid, tenantID: tenantID)
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state))
        }
    }

    public func signUp(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            state.calls.append("signUp")
            guard password.count >= 6 else { throw AuthError(.weakPassword, "WEAK_PASSWORD") }
            guard !state.accounts.values.contains(where: { $0.email == email }) else {
                throw AuthError(.emailAlreadyInUse, "EMAIL_EXISTS")
            }
            state.counter += 1
            let uid = "user-\(state.counter)"
            state.accounts[uid] = Account(uid: uid, email: email, password: password, tenantID: tenantID)
            return BackendSignIn(uid: uid, tokens: issue(for: uid, &state))
        }
    }

    public func signIn(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn {
        try state.withLock { state throws(AuthError) in
            state.calls.append("signIn")
            guard let account = state.accounts.values.first(where: { $0.email == email }) else {
                throw AuthError(.userNotFound, "EMAIL_NOT_FOUND")
            }
            guard account.password == password else { throw AuthError(.wrongPassword, "INVALID_PASSWORD") }
            return BackendSignIn(uid: account.uid, tokens: issue(for: account.uid, &state))
        }
    }

    public func lookUp(idToken: String) async throws(AuthError) -> BackendAccount {
        try state.withLock { state throws(AuthError) in
            state.calls.append("lookUp")
            guard let uid = state.tokens[idToken], let account = state.accounts[uid] else {
                throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN")
            }
            let providers = account.email.map { [ProviderUserInfo(providerID: "password", uid: $0, email: $0)] } ?? []
            return BackendAccount(uid: uid, email: account.email, providers: providers, tenantID: account.tenantID)
        }
    }

    public func update(idToken: String, changes: AccountChanges) async throws(AuthError) -> AuthTokens? { nil }

    public func delete(idToken: String) async throws(AuthError) {
        try state.withLock { state throws(AuthError) in
            state.calls.append("delete")
            guard let uid = state.tokens[idToken] else { throw AuthError(.invalidUserToken, "INVALID_ID_TOKEN") }
            state.accounts[uid] = nil
        }
    }

    public func refresh(refreshToken: String) async throws(AuthError) -> AuthTokens {
        try state.withLock { state throws(AuthError) in
            state.calls.append("refresh")
            guard let uid = state.refreshTokens[refreshToken], state.accounts[uid] != nil else {
                throw AuthError(.userTokenExpired, "TOKEN_EXPIRED")
            }
            return issue(for: uid, &state)
        }
    }
}
