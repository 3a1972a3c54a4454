import Foundation
import SystemSupport

// Getting a token: this process's, the keyring's, or the provider's; one fetch at a time in the process, one exchange
// at a time among the app's processes (AppCheckExchangeLock).
extension AppCheck {
    enum Mode: Sendable, Equatable {
        /// A fresh token from anywhere.
        case ifStale
        /// A new token from the provider.
        case force
        /// The scheduled refresh of the token: a fresh one another process received since (another token), or a new one.
        case refresh(replacing: String)
    }

    /// How long a provider may take to answer.
    static let providerLimit: Duration = .seconds(60)
    /// How long a process waits for another's exchange before making its own.
    static let exchangeLockLimit: Duration = .seconds(45)

    /// The token `mode` asks for; concurrent calls of the process share one fetch (the first call's mode).
    func obtain(_ mode: Mode) async -> Result<AppCheckToken, AppCheckError> {
        let kept: KeptOrFetched = state.withLock { state in
            if mode == .ifStale, let token = state.token, AppCheckRefreshSchedule.isFresh(token, at: now()) { return .kept(token) }
            if let running = state.running { return .fetched(running.task) }
            state.nextID += 1
            let id = state.nextID
            // Cleared by the task itself, under the lock: it cannot end before it is stored here.
            let task = Task { () -> Result<AppCheckToken, AppCheckError> in
                let result = await self.fetch(mode)
                self.state.withLock { if $0.running?.id == id { $0.running = nil } }
                return result
            }
            state.running = (id, task)
            return .fetched(task)
        }
        switch kept {
        case .kept(let token): return .success(token)
        case .fetched(let fetch): return await fetch.value
        }
    }

    /// The process's fresh token, or the fetch that gives one.
    private enum KeptOrFetched {
        case kept(AppCheckToken)
        case fetched(Task<Result<AppCheckToken, AppCheckError>, Never>)
    }

    private func fetch(_ mode: Mode) async -> Result<AppCheckToken, AppCheckError> {
        if let stored = await usableStoredToken(for: mode) {
            adopt(stored)
            return .success(stored)
        }
        let lock = await AppCheckExchangeLock.acquire(
            name: AppCheckExchangeLock.name(for: storage.key.description), in: runtimeDirectory, limit: Self.exchangeLockLimit)
        defer { lock?.release() }
        // Another process may have exchanged while this one waited.
        if let stored = await usableStoredToken(for: mode) {
            adopt(stored)
            return .success(stored)
        }
        let result = await fetchFromProvider(limitedUse: false)
        switch result {
        case .success(let token):
            do {
                try await storage.write(token)
            } catch {
                logger.warning("The App Check token could not be kept in the keyring; this process uses it alone", metadata: ["error": "\(error)"])
            }
            state.withLock { $0.failures = 0 }
            adopt(token)
        case .failure(let error):
            logger.warning("The App Check provider gave no token", metadata: ["error": "\(error)"])
            scheduleRetry()
        }
        return result
    }

    /// The keyring's token when `mode` may use it; a token that cannot be read is not (and is replaced).
    private func usableStoredToken(for mode: Mode) async -> AppCheckToken? {
        let at = now()
        let stored: AppCheckToken?
        switch mode {
        case .force: return nil
        case .ifStale, .refresh:
            do {
                stored = try await storage.read(now: at)
            } catch {
                logger.warning("The keyring's App Check token could not be read", metadata: ["error": "\(error)"])
                return nil
            }
        }
        guard let stored, AppCheckRefreshSchedule.isFresh(stored, at: at) else { return nil }
        if case .refresh(let replaced) = mode, stored.token == replaced { return nil }
        return stored
    }

    /// A token of the provider, bounded by ``providerLimit``, checked sendable and unexpired.
    func fetchFromProvider(limitedUse: Bool) async -> Result<AppCheckToken, AppCheckError> {
        let provider = self.provider
        let answer = await AppCheckRace.completion(within: Self.providerLimit) { (done: @escaping @Sendable (ProviderAnswer) -> Void) in
            let completion: @Sendable (AppCheckToken?, (any Error)?) -> Void = { token, error in done(ProviderAnswer(token: token, error: error)) }
            if limitedUse { provider.getLimitedUseToken(completion: completion) } else { provider.getToken(completion: completion) }
        }
        guard let answer else {
            return .failure(AppCheckError(.unknown, "The App Check provider did not answer within \(Self.providerLimit)."))
        }
        if let error = answer.error {
            return .failure(error as? AppCheckError ?? AppCheckError(.unknown, "The App Check provider failed: \(error)"))
        }
        guard let token = answer.token else { return .failure(AppCheckError(.unknown, "The App Check provider answered neither a token nor an error.")) }
        guard token.isSendable else {
            return .failure(AppCheckError(.unknown, "The App Check provider's token is not 1 to \(AppCheckToken.maximumLength) visible ASCII characters."))
        }
        guard token.expirationDate > now() else { return .failure(AppCheckError(.unknown, "The App Check provider's token has expired already.")) }
        return .success(token)
    }

    private struct ProviderAnswer: @unchecked Sendable {  // the error is the provider's, handed on once
        let token: AppCheckToken?
        let error: (any Error)?
    }

    /// Makes `token` this process's: told in a notification when it is new here, its refresh scheduled.
    private func adopt(_ token: AppCheckToken) {
        let changed = state.withLock { state -> Bool in
            let changed = state.token?.token != token.token
            state.token = token
            return changed
        }
        if changed {
            let (name, value) = (appName, token.token)
            queue.async {
                NotificationCenter.default.post(
                    name: .AppCheckTokenDidChange, object: self,
                    userInfo: [AppCheckTokenNotificationKey: value, AppCheckAppNameNotificationKey: name])
            }
        }
        scheduleRefresh(of: token)
    }
}
