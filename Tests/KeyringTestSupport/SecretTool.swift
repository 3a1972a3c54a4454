import Foundation
import SecretKeychain
import Subprocesses

/// `secret-tool`, libsecret's command-line client: another program writing and reading the
/// keyring in the tests.
package enum SecretTool {
    /// Runs `secret-tool` with `arguments`, again (at most twice, each run a new session) when it
    /// failed with KWallet's session bug (KDE bug 514194, about 1 % of sessions): the store retries
    /// those itself; `secret-tool` stands in a test for a program that may not, and must not make the
    /// test flaky.
    package static func run(_ arguments: [String], input: Data = Data()) async throws -> Subprocess.Result {
        var tries = 0
        while true {
            let result = try await Subprocess.run("secret-tool", arguments, input: input)
            guard result.status != 0, tries < 2,
                  ProviderQuirk.kwalletSessionBugMessages.contains(where: result.standardError.contains) else { return result }
            tries += 1
        }
    }
}
