import Foundation
import Subprocesses

/// `secret-tool`, libsecret's command-line client: another program writing and reading the
/// keyring in the tests.
public enum SecretTool {
    /// What KWallet's session bug (KDE bug 514194, every KF5 kwalletd) makes a client say, about once
    /// in a hundred sessions: the store retries these itself; another program stands in a test for
    /// one that may not, and must not make the test flaky.
    public static let kwalletSessionBugMessages = [
        "Can't find session", "Client public key size is invalid", "received an invalid or unencryptable secret",
    ]

    /// Runs `secret-tool` with `arguments`, again (at most twice, each run a new session) when it
    /// failed with KWallet's session bug.
    public static func run(_ arguments: [String], input: Data = Data()) async throws -> Subprocess.Result {
        var tries = 0
        while true {
            let result = try await Subprocess.run("secret-tool", arguments, input: input)
            guard result.status != 0, tries < 2,
                  kwalletSessionBugMessages.contains(where: result.standardError.contains) else { return result }
            tries += 1
        }
    }
}
