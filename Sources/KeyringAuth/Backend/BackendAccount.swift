import Foundation

/// An account as `accounts:lookup` describes it.
public struct BackendAccount: Hashable, Sendable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: URL?
    public var phoneNumber: String?
    public var creationDate: Date?
    public var lastSignInDate: Date?
    public var providers: [ProviderUserInfo]
    public var tenantID: String?
    /// The second factors enrolled (`mfaInfo`).
    public var secondFactors: [MultiFactorInfo]

    public init(
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
