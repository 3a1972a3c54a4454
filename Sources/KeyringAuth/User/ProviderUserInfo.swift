import Foundation

/// One sign-in method linked to an account.
public struct ProviderUserInfo: Hashable, Sendable, Codable {
    /// For example `password`; anonymous users have none.
    public var providerID: String
    public var uid: String
    public var displayName: String?
    public var photoURL: URL?
    public var email: String?
    public var phoneNumber: String?

    public init(
        providerID: String, uid: String, displayName: String? = nil, photoURL: URL? = nil, email: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.providerID = providerID
        self.uid = uid
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.phoneNumber = phoneNumber
    }
}
