import Foundation
import SecretKeychain

/// A stored user as the keychain holds it, for tools that inspect stored state without signing
/// anyone in or out (the `keyring-auth` CLI's `list` and `show`). Holds the tokens: print them
/// only when asked.
package struct StoredUserSummary: Hashable, Sendable {
    package let uid: String
    package let isAnonymous: Bool
    package let email: String?
    package let isEmailVerified: Bool
    package let displayName: String?
    /// The phone number, E.164.
    package let phoneNumber: String?
    /// The provider IDs linked to the account, for example `password`.
    package let providers: [String]
    package let tenantID: String?
    /// The API key the user signed in with.
    package let apiKey: String
    /// The app that stored the record.
    package let appID: String
    package let tokens: AuthTokens
    /// The second factors enrolled, as the last sign-in or change found them.
    package let secondFactors: [MultiFactorInfo]

    init(_ record: StoredUserRecord) {
        uid = record.uid
        isAnonymous = record.isAnonymous
        email = record.email
        isEmailVerified = record.emailVerified
        displayName = record.displayName
        phoneNumber = record.phoneNumber
        providers = record.providerData.map(\.providerID)
        tenantID = record.tenantID
        apiKey = record.apiKey
        appID = record.appID
        tokens = record.tokens
        secondFactors = (record.secondFactors ?? []).map(\.info)
    }
}
