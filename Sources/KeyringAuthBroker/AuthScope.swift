import KeyringAuth
import SecretKeychain

/// One `Auth` of the broker's: the app as the broker stores it (its private scope keyed by the caller), the group, and
/// the emulator the app named for its calls (`nil`: Firebase).
struct AuthScope: Hashable, Sendable {
    var options: AuthAppOptions
    var group: AccessGroup?
    var emulatorHost: String? = nil

    /// The scope as a message names it.
    var description: String { group.map { "the access group \($0)" } ?? "the app's private scope" }
}
