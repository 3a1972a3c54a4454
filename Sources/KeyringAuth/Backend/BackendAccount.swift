import Foundation

/// An account as `accounts:lookup` describes it.
package struct BackendAccount: Hashable, Sendable {
    package var uid: String
    package var email: String?
    package var emailVerified: Bool
    package var displayName: String?
    package var photoURL: URL?
    package var phoneNumber: String?
    package var creationDate: Date?
    package var lastSignInDate: Date?
    package var providers: [ProviderUserInfo]
    package var tenantID: String?
    /// The second factors enrolled (`mfaInfo`).
    package var secondFactors: [MultiFactorInfo]

    package init(
        uid: String, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
        photoURL: URL? = nil, phoneNumber: String? = nil, creationDate: Date? = nil, lastSignInDate: Date? = nil,
        providers: [ProviderUserInfo] = [], tenantID: String? = nil, secondFactors: [MultiFactorInfo] = []
    ) {
        self.secondFactors = secondFactors
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.creationDate = creationDate
        self.lastSignInDate = lastSignInDate
        self.providers = providers
        self.tenantID = tenantID
    }
}
