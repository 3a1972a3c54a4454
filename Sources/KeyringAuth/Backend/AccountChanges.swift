import Foundation

/// Changes to an account (`accounts:update`); `nil` leaves a field as it is.
package struct AccountChanges: Hashable, Sendable {
    /// A profile field that can be removed from an account.
    package enum Attribute: String, Hashable, Sendable, CaseIterable {
        case displayName, photoURL

        /// The name `accounts:update` uses in `deleteAttribute`.
        var serverName: String {
            switch self {
            case .displayName: "DISPLAY_NAME"
            case .photoURL: "PHOTO_URL"
            }
        }
    }

    package var displayName: String?
    package var photoURL: URL?
    package var email: String?
    package var password: String?
    /// Fields to remove from the account.
    package var deletedAttributes: Set<Attribute>
    /// Sign-in methods to unlink from the account (`deleteProvider`), for example `google.com`.
    package var deletedProviders: Set<String>

    package init(
        displayName: String? = nil, photoURL: URL? = nil, email: String? = nil, password: String? = nil,
        deletedAttributes: Set<Attribute> = [], deletedProviders: Set<String> = []
    ) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.password = password
        self.deletedAttributes = deletedAttributes
        self.deletedProviders = deletedProviders
    }
}
