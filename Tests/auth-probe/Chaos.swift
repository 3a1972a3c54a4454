import Foundation
import KeyringTestSupport
import Logging
@testable import KeyringAuth
import SecretKeychain

/// chaos GROUP SEED [never-prompt]: an app of GROUP (live sync on) making random operations for the fault suite,
/// signing in against the emulator named by FIREBASE_AUTH_EMULATOR_HOST as one of the accounts
/// `chaos0@example.com`… (password `chaos-password`, created beforehand). Prints `ready`, then for
/// each `run N` line of standard input makes N operations, printing one line each (for a
/// `sign-in` line, one sign-in as `chaos0@example.com`, and no `batch done`):
///
///     op KIND ok|fail CODE MILLISECONDS read=UID|none|fail CODE|torn WHY
///
/// KIND is sign-in, sign-out or refresh; CODE an `AuthErrorCode` (for keychain errors
/// `keychainError/` and the `KeychainError` case). After each operation it reads the group's
/// stored user (one keychain read, as another app launching would). Then `batch done`. With
/// `never-prompt` (`prompts` false) its store never asks to unlock a locked collection.
func runChaos(_ options: AuthAppOptions, group: String, seed: UInt64, prompts: Bool = true) async {
    @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    var logger = Logger(label: "auth-probe")
    logger.logLevel = .error
    // Short limits, so that a locked or missing provider is told within seconds.
    let store = SecretServiceStore(configuration: .init(
        timeout: .seconds(2), unlockTimeout: prompts ? .milliseconds(250) : nil, logger: logger))
    let auth = Auth(configuration: AuthConfiguration(options: options, store: store, logger: logger))
    do {
        try auth.useUserAccessGroup(group)
    } catch {
        say("error \(error)")
        return
    }
    var random = SplitMix64(seed: seed)
    say("ready live=\(auth.isLiveSyncActive)")
    func operate(_ kind: String, account: UInt64) async {
        let started = ContinuousClock.now
        var outcome = "ok -"
        do {
            switch kind {
            case "sign-in": _ = try await auth.signIn(withEmail: ChaosAccounts.email(account), password: ChaosAccounts.password)
            case "sign-out": try auth.signOut()
            default: _ = try await auth.currentUser?.getIDToken(forcingRefresh: true)
            }
        } catch {
            outcome = "fail \(describe(error))"
        }
        let elapsed = (ContinuousClock.now - started) / .milliseconds(1)
        say("op \(kind) \(outcome) \(String(format: "%.1f", elapsed)) read=\(readStoredUser(auth, group: group))")
    }
    while let line = readLine() {
        if line == "sign-in" {
            await operate("sign-in", account: 0)
            continue
        }
        guard line.hasPrefix("run "), let count = Int(line.dropFirst(4)) else {
            say("error unknown command \(line)")
            continue
        }
        for _ in 0..<count {
            let kind = ["sign-in", "sign-out", "refresh"][Int(random.next() % 3)]
            await operate(kind, account: random.next() % ChaosAccounts.count)
        }
        say("batch done")
    }
}

/// The accounts the chaos apps sign in with.
enum ChaosAccounts {
    static let count: UInt64 = 3
    static let password = "chaos-password"
    static func email(_ index: UInt64) -> String { "chaos\(index)@example.com" }
}

/// The stored user of `group` as another app would read it: `UID` when complete (a uid, both
/// tokens, and an ID token issued to that uid), `none`, `fail CODE`, or `torn WHY`.
private func readStoredUser(_ auth: Auth, group: String) -> String {
    let user: User?
    do {
        user = try auth.getStoredUser(forAccessGroup: group)
    } catch let error as AuthError where error.code == .corruptStoredUser {
        return "torn \(error.message.prefix(80))"
    } catch {
        return "fail \(describe(error))"
    }
    guard let user else { return "none" }
    let tokens = user.storedRecord.tokens
    guard !user.uid.isEmpty, !tokens.refreshToken.isEmpty else { return "torn empty-uid-or-refresh-token" }
    guard idTokenSubject(tokens.idToken) == user.uid else { return "torn id-token-of-another-user" }
    return user.uid
}

/// The `sub` claim of a JWT, or `nil` when it has none.
private func idTokenSubject(_ token: String) -> String? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64),
          let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return nil }
    return claims["sub"] as? String
}

private func describe(_ error: Error) -> String {
    guard let error = error as? AuthError else { return "unexpected \(error)" }
    return error.keychainError.map { "keychainError/\($0.code)" } ?? error.code.name
}
