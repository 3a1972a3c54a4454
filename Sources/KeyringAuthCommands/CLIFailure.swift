import CommandLineSupport
import KeyringAuth
import SecretKeychain

extension CLIFailure {
    init(_ error: KeychainError) {
        switch error {
        case .noProvider(let detail):
            // The library offers InMemoryStore, a type CLI users never see: the CLI's word for it is --store memory.
            self.init(
                .keyringUnavailable,
                KeychainError.noProviderMessage(detail: detail, orElse: "pass --store memory (nothing is kept after the command)"))
        case .noSessionBus, .noSuchCollection, .locked, .timedOut, .noPortal, .noBroker, .brokerRefused:
            self.init(.keyringUnavailable, error.description)
        case .invalidAccessGroup, .invalidKey, .payloadTooLarge, .invalidCollectionPath:
            self.init(.invalidInput, error.description)
        case .corruptItem, .corruptKeyringFile, .oversizedItem, .sessionFailed:
            self.init(.failure, error.description)
        case .underlying:
            self.init(.failure, error.description + " Run the command again with --verbose to see the keyring calls.")
        }
    }

    init(_ error: AuthError) {
        if let keychainError = error.keychainError {
            self.init(keychainError)
            return
        }
        switch error.code.entry.disposition {
        case .keychain, .noUser, .localFailure:
            self.init(.failure, error.description)
        case .groupChoice:
            self.init(.failure, error.description + " (`keyring-auth use-group` chooses again.)")
        case .invalidInput:
            self.init(.invalidInput, error.description)
        case .unreachable:
            self.init(.backendUnavailable, error.description + " For a local emulator, run `keyring-auth emulator`.")
        case .refused:
            self.init(.backendUnavailable, error.description)
        }
    }
}

/// Runs `body`, turning keychain, auth and App Check errors into ``CLIFailure``s.
func reporting<Result>(_ body: () async throws -> Result) async throws -> Result {
    do {
        return try await body()
    } catch let error as AuthError where error.isAppCheckRefusal {
        throw await AppCheckDebugSecret.refusal(error)
    } catch let error as AuthError {
        throw CLIFailure(error)
    } catch let error as KeychainError {
        throw CLIFailure(error)
    } catch let error as AppCheckError {
        throw CLIFailure(error)
    }
}
